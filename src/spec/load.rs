//! The whole spec ([`Spec`]): one database per arch, the wheel's read through the
//! prepared-database cache (`cache.rs`) or parsed (`db.rs`), the derived ones built from
//! their wheel folder's database on first use (`derive.rs`). Above the database, its cache
//! and the derivations, which depend on the database's types only.

use std::path::{Path, PathBuf};

use super::cache::{self, CacheUse, Loaded, Sections};
use super::db::{parse_arch, parse_wheel, SpecDb};
use super::derive::derive;
use super::{Arch, SpecError};

/// The whole spec: one [`SpecDb`] per arch, read from the wheel (RDNA 3, RDNA 4, CDNA 4)
/// or derived from the database of the arch's wheel folder (see `derive.rs`).
#[derive(Clone, Debug)]
pub struct Spec {
    path: PathBuf,
    /// One database per arch in [`Arch::ALL`] order. The wheel's are built on first use
    /// when the spec came from the cache (`lazy`), at once otherwise; derived ones on first
    /// use.
    dbs: Vec<std::sync::OnceLock<SpecDb>>,
    /// The cache file's sections, decoded arch by arch on first use.
    lazy: Option<std::sync::Arc<Sections>>,
}

impl Spec {
    /// Reads the wheel at `path` (a zip archive) and builds the database of every arch.
    /// The arches are independent, so each is read and built on its own scoped thread.
    /// For the pinned wheel, the built databases are kept in the user cache and read back
    /// from there by later loads (see `spec/cache.rs`: keyed by the wheel's sha256 and the
    /// reading code, checksummed, rebuilt when stale or damaged).
    ///
    /// # Errors
    /// [`SpecError::Io`] or [`SpecError::Zip`] when the file cannot be read as a zip,
    /// [`SpecError::MissingMember`] when a generated module is absent, and any error of
    /// [`SpecDb::from_sources`].
    pub fn load(path: &Path) -> Result<Spec, SpecError> {
        let off =
            std::env::var_os("AMDPCODE_NO_SPEC_CACHE").is_some_and(|v| v != "0" && !v.is_empty());
        match super::default_cache_dir() {
            Some(dir) if !off => load_with(path, &dir).map(|(spec, _)| spec),
            _ => Spec::load_uncached(path),
        }
    }

    /// [`Spec::load`] without the prepared-database cache: always parses the wheel.
    ///
    /// # Errors
    /// As [`Spec::load`].
    pub fn load_uncached(path: &Path) -> Result<Spec, SpecError> {
        let spec = Spec::empty(path, None);
        for db in parse_wheel(path)? {
            let _ = spec.dbs[db.arch() as usize].set(db);
        }
        Ok(spec)
    }

    /// A spec with no database built yet.
    fn empty(path: &Path, lazy: Option<Sections>) -> Spec {
        Spec {
            path: path.to_path_buf(),
            dbs: Arch::ALL
                .iter()
                .map(|_| std::sync::OnceLock::new())
                .collect(),
            lazy: lazy.map(std::sync::Arc::new),
        }
    }

    /// A spec whose databases are decoded from the cache's `sections` on first use.
    fn from_sections(path: &Path, sections: Sections) -> Spec {
        Spec::empty(path, Some(sections))
    }

    /// The wheel this spec was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The arches that have a database, in [`Arch::ALL`] order.
    pub fn arches(&self) -> Vec<Arch> {
        Arch::ALL
            .into_iter()
            .filter(|&a| self.get(a).is_ok())
            .collect()
    }

    /// The database of every arch that has one, in [`Arch::ALL`] order.
    pub fn dbs(&self) -> Vec<&SpecDb> {
        Arch::ALL.iter().filter_map(|&a| self.get(a).ok()).collect()
    }

    /// The database of `arch`.
    ///
    /// # Errors
    /// [`SpecError::NoDatabase`] for an arch whose database is not built yet, and any
    /// error deriving it from its wheel folder's database.
    pub fn get(&self, arch: Arch) -> Result<&SpecDb, SpecError> {
        let slot = &self.dbs[arch as usize];
        if let Some(db) = slot.get() {
            return Ok(db);
        }
        if arch.is_wheel() {
            return Ok(slot.get_or_init(|| self.build_wheel(arch)));
        }
        let derived = derive(self.get(arch.wheel().arch())?, arch, || {
            self.get(Arch::Cdna).ok()
        })?;
        Ok(slot.get_or_init(|| derived))
    }

    /// The database of `arch`, for callers that know it exists (the wheel's arches
    /// always do; [`Spec::get`] is the fallible form for arches named by a user).
    ///
    /// # Panics
    /// When `arch` has no database ([`Spec::get`] fails).
    #[track_caller]
    pub fn db(&self, arch: Arch) -> &SpecDb {
        match self.get(arch) {
            Ok(db) => db,
            Err(e) => panic!("{e}"),
        }
    }

    /// The database of a wheel folder's own arch: decoded from the cache when there is
    /// one, parsed from the wheel otherwise.
    fn build_wheel(&self, arch: Arch) -> SpecDb {
        // Only a spec from the cache has unbuilt wheel databases. Its payload passed its
        // checksum, so decoding fails only on a bug in the cache code: parse the wheel
        // then, as without a cache.
        let decoded = self.lazy.as_ref().and_then(|s| s.decode(arch));
        decoded.unwrap_or_else(|| {
            parse_arch(&self.path, arch)
                .ok()
                .unwrap_or_else(|| SpecDb::from_parts(arch, Vec::new(), Vec::new(), Vec::new()))
        })
    }
}

/// Loads the wheel at `path`, using (and maintaining) the cache file in `dir`.
///
/// # Errors
/// Those of [`Spec::load_uncached`] (the cache itself never makes a load fail).
pub fn load_with(path: &Path, dir: &Path) -> Result<(Spec, CacheUse), SpecError> {
    let (loaded, how) = cache::load_with(path, dir)?;
    let spec = match loaded {
        Loaded::Cached(sections) => Spec::from_sections(path, sections),
        Loaded::Parsed(dbs) => {
            let spec = Spec::empty(path, None);
            for db in dbs {
                let _ = spec.dbs[db.arch() as usize].set(db);
            }
            spec
        }
    };
    Ok((spec, how))
}
