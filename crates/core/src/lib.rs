//! Sightline's comparison engine.
//!
//! Everything that decides *what changed* lives here, so the Node addon, the CLI and the MCP
//! server all read one model. The flow for two screenshots is:
//! [`decode`] → [`canvas`] (pad to one size) → [`pixel`] (pixelmatch-compatible test, or
//! [`perceptual`]) → [`shift`] (rows inserted/removed) → [`regions`] → [`shape`], assembled by
//! [`compare`] into an [`compare::ImageComparison`]. Captures are stored as [`artifact`] files.
//!
//! Comparing a design with its implementation (no shared DOM, no shared past) is [`design`];
//! comparing two animations by their frame-to-frame change is [`motion`]. Both read and write
//! files only inside [`allowed_roots`].

pub mod allowed_roots;
pub mod antialias;
pub mod approve;
pub mod artifact;
pub mod batch;
pub mod canvas;
pub mod capture;
pub mod color_delta;
pub mod compare;
pub mod config;
pub mod crops;
pub mod damaged;
pub mod decode;
pub mod design;
pub mod dom;
pub mod environment;
pub mod error;
pub mod grouping;
pub mod guidance;
pub mod health;
pub mod image;
pub mod layout;
pub mod live;
pub mod mask;
pub mod motion;
pub mod page_check;
pub mod perceptual;
pub mod pixel;
pub mod prefetch;
pub mod priority;
pub mod prune;
pub mod regions;
pub mod rendering;
pub mod report;
pub mod results;
pub mod review;
pub mod run_end;
pub mod session;
pub mod shape;
pub mod shift;
pub mod snapshot;
pub mod stability;
pub mod store;
pub mod unchanged;
pub mod variants;
pub mod verdict;
pub mod video;
pub mod visual_verify;
pub mod words;
pub mod worker_protocol;

pub use crate::compare::{Comparator, CompareOptions, ImageComparison, compare_images};
pub use crate::error::{Error, Result, catch_panic};
pub use crate::image::RgbaImage;
pub use crate::pixel::{PixelDiff, PixelOptions};
