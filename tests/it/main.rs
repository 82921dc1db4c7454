//! End-to-end tests of the `fifteen` binary.
