pub mod client;
pub mod proxy;
pub mod replay;
pub mod slowloris;
