//! The Messages translation's tests: the request, the writer's events,
//! its edges, and the recorded clients' requests.

mod edges;
mod events;
mod fixtures;
mod request;
mod sdk_check;
mod support;
