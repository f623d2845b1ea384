pub mod proxy;
pub mod replay;
