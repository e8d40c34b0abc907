//! Capture artifact (being written).
