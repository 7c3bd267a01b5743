//! Data-driven `.owl` property suites (to be written).
