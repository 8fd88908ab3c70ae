//! Databases of the arches the wheel has no folder for, derived from the database of the
//! folder they take their text and encoding layouts from ([`Arch::wheel`]).
//!
//! An arch gets a database here once its derivation exists; until then [`derive`] reports
//! [`SpecError::NoDatabase`], which every command turns into a clear error.

use super::db::{Spec, SpecDb};
use super::{targets, Arch, Family, SpecError};

/// The database of `arch`, derived from `base`, the database of `arch.wheel()`; `spec`
/// gives the other wheel databases (CDNA 4's lends GFX10 operand tables RDNA 3 lacks).
///
/// # Errors
/// [`SpecError::NoDatabase`] for an arch with no derivation yet; errors reading the
/// checked-in target data.
pub(super) fn derive(base: &SpecDb, arch: Arch, spec: &Spec) -> Result<SpecDb, SpecError> {
    debug_assert_eq!(base.arch(), arch.wheel().arch());
    if arch.family() == Family::Gfx10 {
        let target = arch.profile().targets[0];
        if let Some(data) = targets::target_data(target) {
            let donor = spec.get(Arch::Cdna).ok();
            return targets::derive(arch, base, donor, &data);
        }
    }
    Err(SpecError::NoDatabase { arch })
}
