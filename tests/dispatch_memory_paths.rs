//! The prepared memory paths against the pseudocode: plain loads and stores run directly give
//! what AMD's text gives, on RDNA 3 and on every arch.

mod common;

use amdpcode::dispatch::Dispatcher;
use amdpcode::spec::Arch;
use amdpcode::wave::Engine;
use common::launch::{assemble, raw_launch, words, OUT};

/// The plain loads and stores run directly (`src/wave/memfast.rs`) give what their pseudocode
/// gives: overlapping lanes (stride 4 with 64- and 128-bit accesses), a partial EXEC, SMEM,
/// DS with offsets, under both engines; and a second launch on the same dispatcher (decoded
/// program and blocks reused) gives the same memory again.
#[test]
fn memory_fast_path_matches_the_pseudocode() {
    let code = assemble(
        Arch::Rdna3,
        "s_load_b128 s[4:7], s[0:1], 0x10\n\
         s_load_b64 s[8:9], s[0:1], 0x4\n\
         s_waitcnt lgkmcnt(0)\n\
         v_lshlrev_b32 v1, 2, v0\n\
         v_mov_b32 v10, s4\n\
         v_mov_b32 v11, s5\n\
         v_add_nc_u32 v12, s6, v0\n\
         v_add_nc_u32 v13, s7, v1\n\
         v_mov_b32 v14, s8\n\
         v_mov_b32 v15, s9\n\
         global_load_b128 v[2:5], v1, s[0:1] offset:64\n\
         global_load_b96 v[6:8], v1, s[0:1] offset:8\n\
         s_waitcnt vmcnt(0)\n\
         v_cmp_gt_u32 vcc_lo, 20, v0\n\
         s_and_saveexec_b32 s10, vcc_lo\n\
         global_store_b128 v1, v[2:5], s[0:1] offset:256\n\
         global_store_b64 v1, v[12:13], s[0:1] offset:512\n\
         ds_store_b64 v1, v[10:11] offset:8\n\
         ds_load_b64 v[16:17], v1 offset:12\n\
         global_load_b64 v[18:19], v1, s[0:1] offset:32\n\
         ds_store_2addr_b32 v1, v12, v13 offset0:40 offset1:45\n\
         ds_load_2addr_b32 v[20:21], v1 offset0:41 offset1:47\n\
         ds_store_2addr_stride64_b64 v1, v[14:15], v[2:3] offset0:1 offset1:2\n\
         ds_load_2addr_b64 v[22:25], v1 offset0:64 offset1:128\n\
         s_waitcnt vmcnt(0) lgkmcnt(0)\n\
         s_mov_b32 exec_lo, s10\n\
         global_store_b32 v1, v16, s[0:1] offset:640\n\
         global_store_b32 v1, v17, s[0:1] offset:768\n\
         global_store_b96 v1, v[6:8], s[0:1] offset:896\n\
         global_store_b64 v1, v[18:19], s[0:1] offset:1152\n\
         global_store_b64 v1, v[14:15], s[0:1] offset:1408\n\
         global_store_b64 v1, v[20:21], s[0:1] offset:1664\n\
         global_store_b128 v1, v[22:25], s[0:1] offset:1920\n\
         s_endpgm\n",
    );
    let mut l = raw_launch(Arch::Rdna3, code, 32, 32, 4096);
    let init: Vec<u8> = (0..1024u32)
        .flat_map(|k| (0x1000 + 7 * k).to_le_bytes())
        .collect();
    l.memory = vec![(OUT, init)];
    let mut results = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        for fast in [false, true] {
            let mut d = Dispatcher::new(common::spec().db(Arch::Rdna3), engine).expect("engine");
            d.executor_mut().memory_fast_path = fast;
            d.executor_mut().block_threshold = 1;
            let first = d
                .run(&l)
                .unwrap_or_else(|e| panic!("{engine:?} {fast}: {e}"));
            let again = d
                .run(&l)
                .unwrap_or_else(|e| panic!("{engine:?} {fast}: {e}"));
            assert_eq!(
                first.memory, again.memory,
                "{engine:?} fast {fast}: relaunch"
            );
            results.push((engine, fast, words(&first.memory[0].1)));
        }
    }
    let out = &results[0].2;
    for (engine, fast, r) in &results {
        assert_eq!(r, out, "{engine:?} fast {fast} against the pseudocode");
    }
    let init = |k: u32| 0x1000 + 7 * k;
    // ds: lane j (< 20) stores s4, s5 at lds[j + 2], lds[j + 3], lane after lane, so
    // lds[2..=21] = s4 and lds[22] = s5; lane i (< 20) loads lds[i + 3], lds[i + 4]; lanes
    // >= 20 keep 0.
    assert_eq!(out[160], init(4));
    assert_eq!(out[160 + 18], init(4));
    assert_eq!(out[160 + 19], init(5));
    assert_eq!(out[160 + 20], 0);
    assert_eq!(out[192 + 17], init(4));
    assert_eq!(out[192 + 18], init(5));
    assert_eq!(out[192 + 19], 0);
    // global_store_b64 at 512 + 4 lane of (s6 + lane, s7 + 4 lane): each lane's first word
    // overwrites the previous lane's second; the last active lane's second word stays.
    assert_eq!(out[128 + 5], init(6) + 5);
    assert_eq!(out[128 + 20], init(7) + 4 * 19);
    assert_eq!(out[128 + 21], init(128 + 21));
    // The partial-EXEC load: lanes >= 20 keep v18 = 0.
    assert_eq!(out[288 + 19], init(8 + 19));
    assert_eq!(out[288 + 20], 0);
    // SMEM: s[8:9] = words 1 and 2, stored with overlap: s8 everywhere but the last word.
    assert_eq!(out[352], init(1));
    assert_eq!(out[352 + 31], init(1));
    assert_eq!(out[352 + 32], init(2));
    // ds_store_2addr_b32: lane 1's first word lands at LDS byte 164, which lane 0's first
    // ds_load_2addr_b32 address reads; lane 1's b64 store overwrites lane 0's second word.
    assert_eq!(out[416], init(6) + 1);
    // ds_store_2addr_stride64_b64: lane 0's v[14:15] = s[8:9] at LDS 512 (offset0 1 of 512),
    // which ds_load_2addr_b64 (offset0 64 of 8) reads back into lane 0's v[22:23].
    assert_eq!(out[480], init(1));
}

/// The prepared memory tier runs on every arch: the plain loads and stores of CDNA and GFX10
/// (`GLOBAL_LOAD_DWORDX4`, `S_LOAD_DWORDX2`, `DS_READ2ST64_B64`, ...) and RDNA 4 give what
/// their pseudocode gives (the fast path off), under both engines, wave64 on CDNA: the
/// program of `memory_fast_path_matches_the_pseudocode` in each arch's spelling, plus a load
/// and store through a 64-bit address pair, SCRATCH accesses and FLAT accesses into global
/// memory and (through the shared aperture) LDS.
#[test]
fn memory_fast_path_matches_the_pseudocode_on_every_arch() {
    struct Spelling {
        arch: Arch,
        wave: u32,
        smem: [&'static str; 2],
        global_load: [&'static str; 4],
        global_store: [&'static str; 4],
        ds: [&'static str; 6],
        /// scratch store and load, flat store and load of 64 bits, flat load of 32.
        private: [&'static str; 5],
        add: &'static str,
        wait: &'static str,
        save: &'static str,
        restore: &'static str,
    }
    let dword = |n: usize| -> &'static str { ["dword", "dwordx2", "dwordx3", "dwordx4"][n] };
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let old = |arch: Arch, wave: u32, add: &'static str| Spelling {
        arch,
        wave,
        smem: ["s_load_dwordx4", "s_load_dwordx2"],
        global_load: std::array::from_fn(|n| leak(format!("global_load_{}", dword(n)))),
        global_store: std::array::from_fn(|n| leak(format!("global_store_{}", dword(n)))),
        ds: [
            "ds_write_b64",
            "ds_read_b64",
            "ds_write2_b32",
            "ds_read2_b32",
            "ds_write2st64_b64",
            "ds_read2_b64",
        ],
        private: [
            "scratch_store_dwordx2",
            "scratch_load_dwordx2",
            "flat_store_dwordx2",
            "flat_load_dwordx2",
            "flat_load_dword",
        ],
        add,
        wait: "s_waitcnt vmcnt(0) lgkmcnt(0)",
        save: if wave == 64 {
            "s_and_saveexec_b64 s[10:11], vcc"
        } else {
            "s_and_saveexec_b32 s10, vcc_lo"
        },
        restore: if wave == 64 {
            "s_mov_b64 exec, s[10:11]"
        } else {
            "s_mov_b32 exec_lo, s10"
        },
    };
    let bits = |n: usize| -> &'static str { ["b32", "b64", "b96", "b128"][n] };
    let spellings = [
        old(Arch::Cdna, 64, "v_add_u32"),
        old(Arch::Cdna1, 64, "v_add_u32"),
        old(Arch::Rdna2, 32, "v_add_nc_u32"),
        Spelling {
            arch: Arch::Rdna4,
            wave: 32,
            smem: ["s_load_b128", "s_load_b64"],
            global_load: std::array::from_fn(|n| leak(format!("global_load_{}", bits(n)))),
            global_store: std::array::from_fn(|n| leak(format!("global_store_{}", bits(n)))),
            ds: [
                "ds_store_b64",
                "ds_load_b64",
                "ds_store_2addr_b32",
                "ds_load_2addr_b32",
                "ds_store_2addr_stride64_b64",
                "ds_load_2addr_b64",
            ],
            private: [
                "scratch_store_b64",
                "scratch_load_b64",
                "flat_store_b64",
                "flat_load_b64",
                "flat_load_b32",
            ],
            add: "v_add_nc_u32",
            wait: "s_wait_loadcnt 0x0\ns_wait_kmcnt 0x0\ns_wait_dscnt 0x0",
            save: "s_and_saveexec_b32 s10, vcc_lo",
            restore: "s_mov_b32 exec_lo, s10",
        },
    ];
    for sp in &spellings {
        let (gl, gs, ds) = (sp.global_load, sp.global_store, sp.ds);
        let text = format!(
            "{smem0} s[4:7], s[0:1], 0x10\n\
             {smem1} s[8:9], s[0:1], 0x4\n\
             {wait}\n\
             v_lshlrev_b32 v1, 2, v0\n\
             v_mov_b32 v29, s1\n\
             v_mov_b32 v31, s1\n\
             {add} v28, s0, v1\n\
             {add} v30, 0x900, v28\n\
             {gl0} v26, v[28:29], off offset:96\n\
             v_mov_b32 v10, s4\n\
             v_mov_b32 v11, s5\n\
             {add} v12, s6, v0\n\
             {add} v13, s7, v1\n\
             v_mov_b32 v14, s8\n\
             v_mov_b32 v15, s9\n\
             {gl3} v[2:5], v1, s[0:1] offset:64\n\
             {gl2} v[6:8], v1, s[0:1] offset:8\n\
             {wait}\n\
             v_cmp_gt_u32 {vcc}, 20, v0\n\
             {save}\n\
             {gs3} v1, v[2:5], s[0:1] offset:256\n\
             {gs1} v1, v[12:13], s[0:1] offset:512\n\
             {ds0} v1, v[10:11] offset:8\n\
             {ds1} v[16:17], v1 offset:12\n\
             {gl1} v[18:19], v1, s[0:1] offset:32\n\
             {ds2} v1, v12, v13 offset0:40 offset1:45\n\
             {ds3} v[20:21], v1 offset0:41 offset1:47\n\
             {ds4} v1, v[14:15], v[2:3] offset0:1 offset1:2\n\
             {ds5} v[22:25], v1 offset0:64 offset1:128\n\
             {wait}\n\
             {restore}\n\
             {gs0} v1, v16, s[0:1] offset:640\n\
             {gs0} v1, v17, s[0:1] offset:768\n\
             {gs2} v1, v[6:8], s[0:1] offset:896\n\
             {gs1} v1, v[18:19], s[0:1] offset:1152\n\
             {gs1} v1, v[14:15], s[0:1] offset:1408\n\
             {gs1} v1, v[20:21], s[0:1] offset:1664\n\
             {gs3} v1, v[22:25], s[0:1] offset:1920\n\
             {gs0} v[30:31], v26, off\n\
             {ss} v1, v[12:13], off offset:16\n\
             {sl} v[32:33], v1, off offset:20\n\
             {add} v36, 0xc00, v28\n\
             v_mov_b32 v37, s1\n\
             {fl} v[34:35], v[28:29]\n\
             s_mov_b64 s[12:13], src_shared_base\n\
             v_mov_b32 v38, v1\n\
             v_mov_b32 v39, s13\n\
             {fl32} v40, v[38:39]\n\
             {wait}\n\
             {add} v41, 0x800, v1\n\
             {gs1} v41, v[32:33], s[0:1] offset:512\n\
             {fs} v[36:37], v[34:35]\n\
             {gs0} v41, v40, s[0:1] offset:1536\n\
             s_endpgm\n",
            smem0 = sp.smem[0],
            smem1 = sp.smem[1],
            wait = sp.wait,
            add = sp.add,
            save = sp.save,
            restore = sp.restore,
            vcc = if sp.wave == 64 { "vcc" } else { "vcc_lo" },
            gl0 = gl[0],
            gl1 = gl[1],
            gl2 = gl[2],
            gl3 = gl[3],
            gs0 = gs[0],
            gs1 = gs[1],
            gs2 = gs[2],
            gs3 = gs[3],
            ds0 = ds[0],
            ds1 = ds[1],
            ds2 = ds[2],
            ds3 = ds[3],
            ds4 = ds[4],
            ds5 = ds[5],
            ss = sp.private[0],
            sl = sp.private[1],
            fs = sp.private[2],
            fl = sp.private[3],
            fl32 = sp.private[4],
        );
        let arch = sp.arch;
        let code = assemble(arch, &text);
        let mut l = raw_launch(arch, code, sp.wave, sp.wave, 4096);
        l.scratch_bytes = Some(512);
        let init = |k: u32| 0x1000 + 7 * k;
        l.memory = vec![(
            OUT,
            (0..1024u32).flat_map(|k| init(k).to_le_bytes()).collect(),
        )];
        let mut results = Vec::new();
        for engine in [Engine::Interp, Engine::Jit] {
            for fast in [false, true] {
                let mut d = Dispatcher::new(common::spec().db(arch), engine).expect("engine");
                d.executor_mut().memory_fast_path = fast;
                d.executor_mut().block_threshold = 1;
                let first = d
                    .run(&l)
                    .unwrap_or_else(|e| panic!("{arch:?} {engine:?} {fast}: {e}"));
                let again = d
                    .run(&l)
                    .unwrap_or_else(|e| panic!("{arch:?} {engine:?} {fast}: {e}"));
                assert_eq!(first.memory, again.memory, "{arch:?} {engine:?} {fast}");
                results.push((engine, fast, words(&first.memory[0].1)));
            }
        }
        let out = &results[0].2;
        for (engine, fast, r) in &results {
            assert_eq!(
                r, out,
                "{arch:?} {engine:?} fast {fast} against the pseudocode"
            );
        }
        let lanes = sp.wave as usize;
        // DS: lanes below 20 store s4, s5 at lds[j + 2], lds[j + 3] and load lds[i + 3..].
        assert_eq!(out[160], init(4), "{arch:?}");
        assert_eq!(out[160 + 18], init(4), "{arch:?}");
        assert_eq!(out[160 + 19], init(5), "{arch:?}");
        assert_eq!(out[160 + 20], 0, "{arch:?}");
        // The partial-EXEC global load: lanes >= 20 keep v18 = 0.
        assert_eq!(out[288 + 19], init(8 + 19), "{arch:?}");
        assert_eq!(out[288 + 20], 0, "{arch:?}");
        // SMEM words 1 and 2, stored with overlap by every lane.
        assert_eq!(out[352], init(1), "{arch:?}");
        assert_eq!(out[352 + lanes - 1], init(1), "{arch:?}");
        if lanes == 32 {
            // (wave64: the next store's first lane writes this word)
            assert_eq!(out[352 + lanes], init(2), "{arch:?}");
        }
        assert_eq!(out[416], init(6) + 1, "{arch:?}");
        assert_eq!(out[480], init(1), "{arch:?}");
        // The 64-bit address pair: word 24 + lane, loaded before any store.
        assert_eq!(out[576], init(24), "{arch:?}");
        assert_eq!(
            out[576 + lanes - 1],
            init(24 + lanes as u32 - 1),
            "{arch:?}"
        );
        // Scratch: lane l reads back its own v13 (s7 + 4 l) and a zero, stored with overlap.
        assert_eq!(out[640], init(7), "{arch:?}");
        assert_eq!(
            out[640 + lanes - 1],
            init(7) + 4 * (lanes as u32 - 1),
            "{arch:?}"
        );
        assert_eq!(out[640 + lanes], 0, "{arch:?}");
        // FLAT in the global aperture: words l and l + 1, stored with overlap (wave64: word
        // 64 holds what the first store there wrote, word 16).
        assert_eq!(out[768], init(0), "{arch:?}");
        let last = if lanes == 64 { init(16) } else { init(32) };
        assert_eq!(out[768 + lanes], last, "{arch:?}");
        // FLAT in the shared aperture reads LDS word l: the DS stores above put s4 in
        // words 2..=21 and s5 in word 22.
        assert_eq!(out[896], 0, "{arch:?}");
        assert_eq!(out[896 + 2], init(4), "{arch:?}");
        assert_eq!(out[896 + 21], init(4), "{arch:?}");
        assert_eq!(out[896 + 22], init(5), "{arch:?}");
    }
}
