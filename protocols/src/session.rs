//! The blocking API that real threads use (to be written).
