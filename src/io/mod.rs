//! Shared leaves for what crosses the process's edge: files that appear whole or not at all
//! (`atomic`), every input read with a bound (`input`), HTTP (`http`), and what differs between Unix and
//! Windows (`native`).

pub mod atomic;
pub mod http;
pub mod input;
pub mod native;
