//! Holds no code: its tests (`tests/walks.rs`) walk every format's
//! generated grammar with llguidance and parse what it admits.
