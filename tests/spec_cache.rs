//! The prepared-database cache (issue 14, start-up): a hit gives the same databases as
//! parsing the wheel; a damaged, stale or foreign file is never trusted, only rebuilt.

mod common;

use std::path::PathBuf;

use amdpcode::spec::{self, cache_file, load_with_cache, Arch, CacheUse, Spec};

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("spec-cache-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn pinned_sha() -> [u8; 32] {
    let hex = spec::WHEEL_SHA256;
    let mut out = [0u8; 32];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}

/// Every arch's instructions, encodings and pseudocode order agree with a fresh parse.
fn assert_same(a: &Spec, b: &Spec) {
    for arch in Arch::ALL {
        let (x, y) = (a.db(arch), b.db(arch));
        assert_eq!(x.arch(), arch);
        assert_eq!(x.instructions(), y.instructions(), "{arch}");
        assert_eq!(x.encodings(), y.encodings(), "{arch}");
        let names = |d: &spec::SpecDb| d.with_pcode().map(|i| i.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(x), names(y), "{arch}");
        assert_eq!(
            x.get("V_ADD_F32").map(|i| &i.encoding),
            y.get("V_ADD_F32").map(|i| &i.encoding)
        );
    }
}

#[test]
fn issue_14_cache_hit_equals_parse() {
    let wheel = common::spec().path().to_path_buf();
    let dir = scratch("hit");
    let parsed = Spec::load_uncached(&wheel).unwrap();
    let (first, how) = load_with_cache(&wheel, &dir).unwrap();
    assert_eq!(how, CacheUse::Rebuilt);
    assert!(cache_file(&dir, &pinned_sha()).exists());
    let (second, how) = load_with_cache(&wheel, &dir).unwrap();
    assert_eq!(how, CacheUse::Hit);
    assert_same(&first, &parsed);
    assert_same(&second, &parsed);
    assert_eq!(
        second.db(Arch::Rdna3).with_pcode().count(),
        parsed.db(Arch::Rdna3).with_pcode().count()
    );
}

#[test]
fn issue_14_cache_damaged_or_stale_is_rebuilt() {
    let wheel = common::spec().path().to_path_buf();
    let dir = scratch("damaged");
    let parsed = Spec::load_uncached(&wheel).unwrap();
    load_with_cache(&wheel, &dir).unwrap();
    let file = cache_file(&dir, &pinned_sha());
    let good = std::fs::read(&file).unwrap();

    // A damaged header (magic): not trusted, rebuilt.
    let mut bad = good.clone();
    bad[0] ^= 0xff;
    std::fs::write(&file, &bad).unwrap();
    let (spec, how) = load_with_cache(&wheel, &dir).unwrap();
    assert_eq!(how, CacheUse::Rebuilt);
    assert_same(&spec, &parsed);
    assert_eq!(std::fs::read(&file).unwrap(), good);

    // A truncated file: rebuilt.
    std::fs::write(&file, &good[..good.len() / 2]).unwrap();
    assert_eq!(load_with_cache(&wheel, &dir).unwrap().1, CacheUse::Rebuilt);

    // A damaged byte inside the last arch's section: the header holds, so the load is a
    // hit, but that section fails its checksum when first used: the arch is parsed from
    // the wheel (same database) and the file is removed, so the next load rebuilds it.
    let mut bad = good.clone();
    let at = bad.len() - 100;
    bad[at] ^= 0x01;
    std::fs::write(&file, &bad).unwrap();
    let (spec, how) = load_with_cache(&wheel, &dir).unwrap();
    assert_eq!(how, CacheUse::Hit);
    assert_same(&spec, &parsed);
    assert!(!file.exists());
    assert_eq!(load_with_cache(&wheel, &dir).unwrap().1, CacheUse::Rebuilt);
}

#[test]
fn issue_14_cache_wheel_touched_is_rehashed() {
    let dir = scratch("touched");
    let wheel = dir.join(spec::WHEEL_FILE);
    std::fs::copy(common::spec().path(), &wheel).unwrap();
    let cache = dir.join("cache");
    assert_eq!(
        load_with_cache(&wheel, &cache).unwrap().1,
        CacheUse::Rebuilt
    );
    // A new modification time: the recorded sha256 no longer stands, the wheel is hashed
    // again; the content is the same, so the cache still applies.
    let f = std::fs::File::options().write(true).open(&wheel).unwrap();
    f.set_modified(std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(7))
        .unwrap();
    drop(f);
    let before = std::fs::read(cache_file(&cache, &pinned_sha())).unwrap();
    assert_eq!(load_with_cache(&wheel, &cache).unwrap().1, CacheUse::Hit);
    // The new stamp is recorded (only the header changes), and the cache still loads.
    let after = std::fs::read(cache_file(&cache, &pinned_sha())).unwrap();
    assert_eq!(before.len(), after.len());
    let changed: Vec<usize> = (0..before.len())
        .filter(|&i| before[i] != after[i])
        .collect();
    assert!(
        !changed.is_empty() && changed.iter().all(|&i| i < 200),
        "{changed:?}"
    );
    let (spec, how) = load_with_cache(&wheel, &cache).unwrap();
    assert_eq!(how, CacheUse::Hit);
    assert_eq!(spec.db(Arch::Cdna).with_pcode().count(), 1441);
}
