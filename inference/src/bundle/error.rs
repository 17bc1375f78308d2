/// Why a bundle could not be used, and what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("this file is not a Pathshala course bundle (bad magic bytes); build one with `index-builder build --out course.bundle PATH...`")]
    NotABundle,
    #[error("the bundle is truncated: {what} needs {needed} bytes but only {available} are left; download or copy it again")]
    Truncated { what: &'static str, needed: u64, available: u64 },
    #[error("bundle format {found} is newer than this version of Pathshala understands ({supported}); update the app or index-builder")]
    TooNew { found: u32, supported: u32 },
    #[error("bundle format {found} is older than the oldest supported ({oldest}); rebuild it with `index-builder build`")]
    TooOld { found: u32, oldest: u32 },
    #[error("the bundle is corrupt (checksum mismatch: stored {stored:08x}, computed {computed:08x}); download or copy it again")]
    Checksum { stored: u32, computed: u32 },
    #[error("the bundle is corrupt ({0}); download it again or rebuild it with `index-builder build`")]
    Decode(String),
    #[error("the bundle is inconsistent ({0}); rebuild it with `index-builder build`")]
    Invalid(String),
    #[error("the bundle's vectors were made by encoder {bundle} but {loaded} is loaded; load the bundle's encoder or rebuild the bundle with this one")]
    EncoderMismatch { bundle: String, loaded: String },
    #[error("the bundle has no vectors (built with --no-embed); dense search needs a bundle built with an encoder")]
    NoVectors,
    #[error("could not write the bundle: {0}")]
    Encode(String),
}
