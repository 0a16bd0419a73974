//! Device-wide algorithms: the whole grid cooperates on one array.

pub mod copy;
pub mod math_check;
pub mod reduce;
pub mod scan;
