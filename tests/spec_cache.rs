//! The prepared-database cache (start-up): a hit gives the same databases as
//! parsing the wheel; a damaged, stale or foreign file is never trusted, only rebuilt.

mod common;

use std::path::PathBuf;

use amdpcode::spec::{self, cache_file, load_with_cache, Arch, CacheUse, Spec, CACHE_HEADER_LEN};

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
    for arch in Arch::WHEEL {
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
fn cache_hit_equals_parse() {
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
fn cache_damaged_or_stale_is_rebuilt() {
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
fn cache_wheel_touched_is_rehashed() {
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
        !changed.is_empty() && changed.iter().all(|&i| i < CACHE_HEADER_LEN),
        "{changed:?}"
    );
    let (spec, how) = load_with_cache(&wheel, &cache).unwrap();
    assert_eq!(how, CacheUse::Hit);
    assert_eq!(spec.db(Arch::Cdna).with_pcode().count(), 1441);
}

/// Loads through the cache in `dir`, checks the result against a fresh parse, and returns
/// how the load went.
fn load_checked(wheel: &std::path::Path, dir: &std::path::Path, parsed: &Spec) -> CacheUse {
    let (spec, how) = load_with_cache(wheel, dir).unwrap();
    assert_same(&spec, parsed);
    how
}

#[test]
fn cache_header_damage_stale_key_and_length_are_rebuilt() {
    let wheel = common::spec().path().to_path_buf();
    let dir = scratch("header");
    let parsed = Spec::load_uncached(&wheel).unwrap();
    assert_eq!(load_checked(&wheel, &dir, &parsed), CacheUse::Rebuilt);
    let file = cache_file(&dir, &pinned_sha());
    let good = std::fs::read(&file).unwrap();
    assert!(good.len() > CACHE_HEADER_LEN);

    // Every kind of damage is caught by the header alone: the next load rebuilds the file
    // byte for byte as it was.
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    // The wheel sha256 of another wheel (bytes 8..40), header CRC fixed up: a stale key.
    let mut stale = good.clone();
    stale[8] ^= 0x55;
    let crc = crc32(&stale[..CACHE_HEADER_LEN - 4]);
    stale[CACHE_HEADER_LEN - 4..CACHE_HEADER_LEN].copy_from_slice(&crc.to_le_bytes());
    cases.push(("stale wheel key", stale));
    // The code key (after the magic, the sha256 and its length) of another build.
    let mut other_code = good.clone();
    other_code[44] ^= 0x01;
    let crc = crc32(&other_code[..CACHE_HEADER_LEN - 4]);
    other_code[CACHE_HEADER_LEN - 4..CACHE_HEADER_LEN].copy_from_slice(&crc.to_le_bytes());
    cases.push(("stale code key", other_code));
    // A header byte changed without fixing the CRC (a recorded stamp).
    let mut flipped = good.clone();
    flipped[CACHE_HEADER_LEN - 30] ^= 0x80;
    cases.push(("header CRC", flipped));
    // Truncated inside the header, inside a section, by one byte; one byte too many.
    cases.push(("truncated header", good[..CACHE_HEADER_LEN / 2].to_vec()));
    cases.push(("truncated section", good[..good.len() * 2 / 3].to_vec()));
    cases.push(("one byte short", good[..good.len() - 1].to_vec()));
    let mut longer = good.clone();
    longer.push(0);
    cases.push(("one byte long", longer));
    cases.push(("empty", Vec::new()));
    for (what, bytes) in cases {
        std::fs::write(&file, &bytes).unwrap();
        assert_eq!(
            load_checked(&wheel, &dir, &parsed),
            CacheUse::Rebuilt,
            "{what}"
        );
        assert_eq!(std::fs::read(&file).unwrap(), good, "{what}");
        assert_eq!(load_checked(&wheel, &dir, &parsed), CacheUse::Hit, "{what}");
    }
}

#[test]
fn cache_damaged_first_section_falls_back_and_rebuilds() {
    let wheel = common::spec().path().to_path_buf();
    let dir = scratch("section");
    let parsed = Spec::load_uncached(&wheel).unwrap();
    load_with_cache(&wheel, &dir).unwrap();
    let file = cache_file(&dir, &pinned_sha());
    let good = std::fs::read(&file).unwrap();
    // A byte inside the first (rdna3) section: the header holds (a hit), the section fails
    // its CRC when rdna3 is first used, rdna3 is parsed from the wheel instead (the same
    // database) and the file is removed; the other arches still decode from the file.
    let mut bad = good.clone();
    bad[CACHE_HEADER_LEN + 1000] ^= 0x04;
    std::fs::write(&file, &bad).unwrap();
    let (spec, how) = load_with_cache(&wheel, &dir).unwrap();
    assert_eq!(how, CacheUse::Hit);
    let rdna3 = spec.db(Arch::Rdna3);
    assert_eq!(rdna3.instructions(), parsed.db(Arch::Rdna3).instructions());
    assert!(!file.exists());
    assert_same(&spec, &parsed);
    assert_eq!(load_checked(&wheel, &dir, &parsed), CacheUse::Rebuilt);
    assert_eq!(std::fs::read(&file).unwrap(), good);
}

#[test]
fn cache_two_wheel_paths_share_one_file() {
    // Two copies of the wheel with different modification times (as when the checkout's
    // copy and the user cache's copy are both used): once each stamp is recorded, neither
    // process rewrites the file.
    let dir = scratch("two-paths");
    let cache = dir.join("cache");
    let (a, b) = (dir.join("a.whl"), dir.join("b.whl"));
    for (path, secs) in [(&a, 11), (&b, 22)] {
        std::fs::copy(common::spec().path(), path).unwrap();
        let f = std::fs::File::options().write(true).open(path).unwrap();
        f.set_modified(std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(secs))
            .unwrap();
    }
    assert_eq!(load_with_cache(&a, &cache).unwrap().1, CacheUse::Rebuilt);
    assert_eq!(load_with_cache(&b, &cache).unwrap().1, CacheUse::Hit);
    let file = cache_file(&cache, &pinned_sha());
    let recorded = std::fs::read(&file).unwrap();
    for wheel in [&a, &b, &a, &b] {
        let (spec, how) = load_with_cache(wheel, &cache).unwrap();
        assert_eq!(how, CacheUse::Hit);
        assert_eq!(spec.db(Arch::Rdna4).arch(), Arch::Rdna4);
        assert_eq!(std::fs::read(&file).unwrap(), recorded);
    }
    // A wheel whose content differs is not the pinned one: parsed (and refused by the
    // parser here, as it is not a zip), never answered from the cache.
    let c = dir.join("c.whl");
    std::fs::write(&c, b"not a wheel").unwrap();
    assert!(load_with_cache(&c, &cache).is_err());
    assert_eq!(std::fs::read(&file).unwrap(), recorded);
}

/// CRC-32 (IEEE), bit by bit: the header checksum, computed independently of the crate.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// The CLI's output with the cache off, rebuilding it, hitting it, and after damage.
#[test]
fn cli_same_output_with_and_without_cache() {
    let dir = scratch("cli");
    let program = dir.join("p.s");
    std::fs::write(
        &program,
        "s_mov_b32 s0, 3\nv_mov_b32 v1, 1.5\nv_add_f32 v2, s0, v1\ns_add_u32 s1, s0, 40\n\
         v_cmp_gt_f32 vcc_lo, v2, v1\ns_endpgm\n",
    )
    .unwrap();
    let hsaco = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/dispatch/fixture-gfx1100.hsaco"
    );
    let wheel = common::spec().path().to_path_buf();
    let cache = dir.join("cache");
    let commands: [Vec<&str>; 2] = [
        vec![
            "run",
            "--arch",
            "rdna3",
            "--json",
            program.to_str().unwrap(),
        ],
        vec![
            "dispatch",
            hsaco,
            "--kernel",
            "vadd",
            "--grid",
            "1",
            "--block",
            "32",
            "--arg",
            "buf=f32x32:iota",
            "--arg",
            "buf=f32x32:iota",
            "--arg",
            "buf=f32x32:zero",
            "--arg",
            "u32=32",
            "--print",
            "2",
        ],
    ];
    let run = |args: &[&str], no_cache: bool| {
        let mut cmd = std::process::Command::new(common::bin());
        cmd.args(args)
            .env("AMDPCODE_SPEC", &wheel)
            .env("AMDPCODE_CACHE", &cache)
            .env("AMDPCODE_TIME_FIRST", "1")
            .env_remove("AMDPCODE_NO_SPEC_CACHE");
        if no_cache {
            cmd.env("AMDPCODE_NO_SPEC_CACHE", "1");
        }
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{args:?}: {stderr}");
        assert!(
            stderr.contains("first instruction done: ") && stderr.contains(" ms since main"),
            "{stderr}"
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let file = cache_file(&cache, &pinned_sha());
    for args in &commands {
        let _ = std::fs::remove_dir_all(&cache);
        let reference = run(args, true);
        assert!(!file.exists(), "the cache is off");
        assert!(reference.len() > 40, "{reference}");
        assert_eq!(run(args, false), reference, "rebuilding: {args:?}");
        assert!(file.exists());
        assert_eq!(run(args, false), reference, "hit: {args:?}");
        let mut bytes = std::fs::read(&file).unwrap();
        bytes[CACHE_HEADER_LEN + 7] ^= 0x10;
        std::fs::write(&file, &bytes).unwrap();
        assert_eq!(run(args, false), reference, "damaged: {args:?}");
        assert!(!file.exists(), "the damaged file is removed");
    }
    // s1 = 3 + 40.
    assert!(run(&commands[0], false).contains("\"s1\": \"0x2b\""));
}
