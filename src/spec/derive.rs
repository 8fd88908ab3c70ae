//! Databases of the arches the wheel has no folder for, derived from the database of the
//! folder they take their text and encoding layouts from ([`Arch::wheel`]).
//!
//! An arch gets a database here once its derivation exists; until then [`derive`] reports
//! [`SpecError::NoDatabase`], which every command turns into a clear error.

use super::db::SpecDb;
use super::{Arch, SpecError};

/// The database of `arch`, derived from `base`, the database of `arch.wheel()`.
///
/// # Errors
/// [`SpecError::NoDatabase`] for an arch with no derivation yet.
pub(super) fn derive(base: &SpecDb, arch: Arch) -> Result<SpecDb, SpecError> {
    debug_assert_eq!(base.arch(), arch.wheel().arch());
    Err(SpecError::NoDatabase { arch })
}
