//! Tests of the sparse memory: pages, regions, host ranges and the watch.

use super::*;

#[test]
fn reads_zero_and_crosses_pages() {
    let mut m = SparseMemory::new();
    assert_eq!(m.read_vec(0xffff_fff0, 4), vec![0; 4]);
    assert!(m.is_empty());
    m.write(0x1ffe, &[1, 2, 3, 4]);
    assert_eq!(m.read_vec(0x1ffd, 6), vec![0, 1, 2, 3, 4, 0]);
    assert_eq!((m.byte(0x1fff), m.byte(0x2000)), (2, 3));
    m.write(u64::MAX, &[9, 8]);
    assert_eq!((m.byte(u64::MAX), m.byte(0)), (9, 8));
    let mut other = SparseMemory::new();
    other.write(0x1ffe, &[1, 2, 3, 4]);
    other.write(u64::MAX - 1, &[0, 9, 8]);
    assert_eq!(m, other);
}

#[test]
fn host_backed_reads_host_and_copies_pages_on_write() {
    // Two host ranges straddling a page boundary, with a gap between them.
    let host: Vec<u8> = (0..3 * PAGE).map(|i| (i % 251) as u8).collect();
    let base = host.as_ptr() as u64;
    let ranges = [(base + 100, PAGE as u64), (base + PAGE as u64 + 200, 300)];
    // SAFETY: `host` outlives `m` and is not changed while `m` is used.
    let mut m = unsafe { SparseMemory::with_host(&ranges) };
    assert_eq!(m.byte(base + 100), host[100]);
    assert_eq!(m.byte(base + 99), 0, "outside the ranges reads zero");
    let at = base + PAGE as u64 + 190;
    let mut want = vec![0u8; 30];
    want[10..].copy_from_slice(&host[PAGE + 200..PAGE + 220]);
    assert_eq!(m.read_vec(at, 30), want);
    assert!(m.is_empty(), "reading allocates nothing");
    m.write(base + 150, &[7, 7]);
    assert_eq!(m.read_vec(base + 149, 4), vec![host[149], 7, 7, host[152]]);
    assert_eq!(host[150], 150, "the host is never written");
    let pages: Vec<u64> = m.pages().map(|(a, _)| a).collect();
    assert_eq!(pages, vec![(base + 150) & !(PAGE as u64 - 1)]);
}

#[test]
fn watched_range_records_overlapping_writes_only() {
    let mut m = SparseMemory::new();
    m.watch_writes(0x1000, 8);
    m.write(0xff8, &[1; 8]);
    m.write(0x1008, &[2; 4]);
    assert!(!m.watched_write(), "writes beside the range");
    m.write(0xffe, &[3; 3]);
    assert!(m.watched_write());
    assert!(m.take_watched_write());
    assert!(!m.take_watched_write(), "taken once");
    m.set(0x1007, 9);
    assert!(m.take_watched_write());
    let mut other = SparseMemory::new();
    other.write(0xff8, &[1; 8]);
    other.write(0x1008, &[2; 4]);
    other.write(0xffe, &[3; 3]);
    other.set(0x1007, 9);
    assert_eq!(m, other, "watching is not part of the contents");
}

#[test]
fn word_rows_read_and_write_as_their_bytes() {
    let words: Vec<u32> = (0..40).map(|i| 0x0101_0101 * i).collect();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    // In one present page, across a page boundary, in an absent page, over the watch.
    for at in [0x1010u64, 0x1fc0, 0x5000, 0x2ffe] {
        let mut m = SparseMemory::new();
        m.write(0x1000, &[7; 8]);
        m.watch_writes(0x2ffe, 1);
        m.write_u32s_from(at, &words);
        let mut want = SparseMemory::new();
        want.write(0x1000, &[7; 8]);
        want.write(at, &bytes);
        assert_eq!(m, want, "0x{at:x}");
        assert_eq!(m.take_watched_write(), at == 0x2ffe, "0x{at:x}");
        let mut back = vec![0u32; 41];
        m.read_u32s_into(at - 4, &mut back);
        let before = if at == 0x1010 { 0 } else { m.read_u32(at - 4) };
        assert_eq!(back[0], before, "0x{at:x}");
        assert_eq!(&back[1..], &words[..], "0x{at:x}");
    }
    // An absent page reads zero, through the host when there is one.
    let mut out = [1u32; 3];
    SparseMemory::new().read_u32s_into(0x9000, &mut out);
    assert_eq!(out, [0; 3]);
}

#[test]
fn word_runs_and_reused_pages_write_as_single_writes() {
    let words = [
        (0x1ff8, 0x0403_0201),
        (0x1ffc, 0x0807_0605),
        (0x1ffe, 0xaabb_ccdd),
        (0x5000, 7),
        (0x1000, 0x1122_3344),
        (0xfff, 0xdead_beef),
    ];
    let mut m = SparseMemory::new();
    m.write(0x1000, &[9; 16]);
    m.watch_writes(0x5002, 1);
    m.write_u32s(words);
    let mut want = SparseMemory::new();
    want.write(0x1000, &[9; 16]);
    for (a, v) in words {
        want.write(a, &u32::to_le_bytes(v));
    }
    assert_eq!(m, want);
    assert_eq!(m.read_u32(0x1ffc), 0xccdd_0605, "the later word wins");
    assert_eq!(m.read_u32(0x1000), 0x11de_adbe);
    assert!(
        m.take_watched_write(),
        "a word over the watched byte is seen"
    );
    // Pages kept from another memory come back zeroed (or filled from the host).
    let mut fresh = SparseMemory::new();
    fresh.reuse_pages_of(m);
    assert!(fresh.is_empty());
    fresh.write(0x3004, &[5]);
    assert_eq!(fresh.read_vec(0x3000, 8), vec![0, 0, 0, 0, 5, 0, 0, 0]);
    fresh.write(0x8000, &[1; PAGE]);
    assert_eq!(fresh.read_vec(0x8ffe, 4), vec![1, 1, 0, 0]);
    fresh.clear();
    fresh.write(0x8001, &[2]);
    assert_eq!(fresh.read_vec(0x8000, 3), vec![0, 2, 0]);
    // Zeroing present bytes only: across a page boundary, an absent page untouched.
    fresh.write(0x8ffe, &[3; 4]);
    fresh.zero_present(0x8000, 0x1001);
    assert_eq!(fresh.read_vec(0x8000, 3), vec![0, 0, 0]);
    assert_eq!(fresh.read_vec(0x8ffe, 4), vec![0, 0, 0, 3]);
    fresh.zero_present(0x20000, 0x3000);
    fresh.zero_present(0x8000, 0);
    assert_eq!(fresh.pages().count(), 2);
}

/// The same operations on a memory holding `[0x1ff0, 0x2030)` as a region and on one
/// with pages only.
fn region_pair() -> (SparseMemory, SparseMemory) {
    let bytes: Vec<u8> = (0..0x40).map(|i| i as u8 ^ 0x5a).collect();
    let mut m = SparseMemory::new();
    m.write(0x1fe0, &[1; 0x60]);
    m.add_region(0x1ff0, bytes.clone(), false)
        .expect("free range");
    let mut want = SparseMemory::new();
    want.write(0x1fe0, &[1; 0x60]);
    want.write(0x1ff0, &bytes);
    (m, want)
}

#[test]
fn region_reads_and_writes_cross_its_edges_into_pages() {
    let (mut m, mut want) = region_pair();
    assert_eq!(m, want, "a region equals the same bytes in pages");
    assert_eq!(m.read_vec(0x1fe8, 0x58), want.read_vec(0x1fe8, 0x58));
    assert_eq!((m.byte(0x1fef), m.byte(0x1ff0)), (1, 0x5a));
    assert_eq!(m.read_u32(0x1fee), u32::from_le_bytes([1, 1, 0x5a, 0x5b]));
    assert_eq!(m.read_u32(0x202e), u32::from_le_bytes([0x64, 0x65, 1, 1]));
    // Writes across the lower edge, inside, across the upper edge and past it.
    for m in [&mut m, &mut want] {
        m.write(0x1fec, &[9; 8]);
        m.write_u32(0x2000, 0xdead_beef);
        m.write_u32s_from(0x2028, &[0x0403_0201, 0x0807_0605, 0x0c0b_0a09]);
        m.write_u32s([(0x202e, 0x1122_3344), (0x1ff2, 7), (0x3000, 8)]);
        m.set(0x2030, 0xee);
    }
    assert_eq!(m, want);
    let mut words = [0u32; 20];
    let mut wanted = [0u32; 20];
    m.read_u32s_into(0x1fe4, &mut words);
    want.read_u32s_into(0x1fe4, &mut wanted);
    assert_eq!(words, wanted);
    assert_eq!(m.read_u32(0x2000), 0xdead_beef);
    assert_eq!(
        m.region(0x2000, 4),
        Some((&[0xef, 0xbe, 0xad, 0xde][..], false))
    );
    assert_eq!(m.region(0x202e, 4), None, "past the region's end");
    // The chunks `pages()` yields hold every byte once, as the pages-only memory's bytes.
    let mut seen = std::collections::BTreeMap::new();
    for (a, chunk) in m.pages() {
        assert!(
            chunk.len() <= PAGE - (a as usize & (PAGE - 1)),
            "inside one page"
        );
        for (i, &b) in chunk.iter().enumerate() {
            assert!(
                seen.insert(a + i as u64, b).is_none(),
                "0x{:x} twice",
                a + i as u64
            );
        }
    }
    for (&a, &b) in &seen {
        assert_eq!(want.byte(a), b, "0x{a:x}");
    }
    assert_eq!(
        seen.len(),
        3 * PAGE,
        "three pages, part of two as the region"
    );
    // One byte different: not equal, either way round.
    m.write(0x2010, &[m.byte(0x2010) ^ 1]);
    assert_ne!(m, want);
    assert_ne!(want, m);
    // A page a region touches is not handed out whole.
    assert!(m.page_of(0x1000).is_none() && m.page_of(0x3000).is_some());
}

#[test]
fn regions_place_take_and_refuse_overlaps() {
    let (mut m, _) = region_pair();
    assert_eq!(
        m.add_region(0x2020, vec![1; 0x20], false),
        Err(vec![1; 0x20])
    );
    assert_eq!(
        m.add_region(0x1fe0, vec![1; 0x11], false),
        Err(vec![1; 0x11])
    );
    assert_eq!(
        m.add_region(u64::MAX - 3, vec![1; 8], false),
        Err(vec![1; 8])
    );
    assert_eq!(m.add_region(0x9000, Vec::new(), false), Err(Vec::new()));
    // Touching regions are fine; a read across both reads both.
    m.add_region(0x2030, vec![0xaa; 0x10], false)
        .expect("touches, no overlap");
    assert_eq!(m.read_vec(0x202f, 3), vec![0x65, 0xaa, 0xaa]);
    assert_eq!(m.region_len(0x2030), Some(0x10));
    // Taking a region back hands its bytes over; its addresses then read as unwritten.
    let bytes = m.take_region(0x1ff0).expect("held");
    assert_eq!((bytes.len(), bytes[0]), (0x40, 0x5a));
    assert_eq!(m.read_vec(0x1fee, 4), vec![1, 1, 0, 0]);
    assert_eq!(m.take_region(0x1ff0), None);
    // A region over whole pages drops them; wrapping reads cross from the top to 0.
    let mut w = SparseMemory::new();
    w.write(0x4000, &[3; 3 * PAGE]);
    w.add_region(0x4ff0, vec![4; PAGE + 0x20], false)
        .expect("free");
    assert_eq!(w.pages.len(), 2, "the page inside the region is dropped");
    assert_eq!(w.read_vec(0x4fef, 2), vec![3, 4]);
    assert_eq!(w.read_vec(0x600f, 3), vec![4, 3, 3]);
    w.add_region(0, vec![6; 4], true).expect("free");
    assert_eq!(
        w.region(1, 2),
        Some((&[6, 6][..], true)),
        "the owner's mapped flag"
    );
    w.write(u64::MAX - 1, &[7; 4]);
    assert_eq!(w.read_vec(u64::MAX - 2, 6), vec![0, 7, 7, 7, 7, 6]);
    w.zero_present(0x5000, 0x1010);
    assert_eq!(w.read_vec(0x4fff, 3), vec![4, 0, 0]);
    assert_eq!(w.read_vec(0x600f, 3), vec![0, 3, 3]);
    w.clear();
    assert!(w.is_empty() && w.read_vec(0, 4) == vec![0; 4]);
}

#[test]
fn memory_stays_small_to_move() {
    // A dispatcher moves the global memory and the LDS into a wave at every resume.
    assert!(std::mem::size_of::<SparseMemory>() <= 64);
}

#[test]
fn watched_range_inside_a_region_sees_every_writer() {
    let (mut m, _) = region_pair();
    m.watch_writes(0x2004, 4);
    m.write_u32(0x2000, 1);
    m.write_u32s_from(0x2008, &[2, 3]);
    assert!(m.region_mut(0x2010, 16).is_some());
    assert!(!m.take_watched_write(), "writes beside the watched bytes");
    m.write_u32(0x2006, 1);
    assert!(m.take_watched_write(), "write_u32");
    m.write_u32s_from(0x1ffc, &[5; 4]);
    assert!(m.take_watched_write(), "write_u32s_from");
    m.write_u32s([(0x2007, 5)]);
    assert!(m.take_watched_write(), "write_u32s");
    assert!(m.region_mut(0x2000, 8).is_some());
    assert!(m.take_watched_write(), "region_mut");
    let mut n = SparseMemory::new();
    n.watch_writes(0x2004, 4);
    assert!(n.add_region(0x2000, vec![0; 8], false).is_ok());
    assert!(n.take_watched_write(), "placing a region is a write");
}

#[test]
fn a_memory_over_a_base_reads_it_and_copies_only_the_pages_it_writes() {
    let mut base = SparseMemory::new();
    base.write(0x1000, &[1, 2, 3, 4]);
    assert!(base
        .add_region(0x10_0000, (0..64u8).collect(), false)
        .is_ok());
    let base = Arc::new(base);
    let mut v = SparseMemory::over(base.clone());
    assert_eq!(v.read_vec(0x0ffe, 4), vec![0, 0, 1, 2]);
    assert_eq!(v.read_u32(0x10_0004), u32::from_le_bytes([4, 5, 6, 7]));
    assert!(v.pages().next().is_none(), "reads copy nothing");
    v.write(0x1001, &[9]);
    v.write_u32(0x10_0008, 0xaabb_ccdd);
    // The pages written hold the base's other bytes; the base never changes.
    assert_eq!(v.read_vec(0x1000, 4), vec![1, 9, 3, 4]);
    assert_eq!(
        v.read_vec(0x10_0007, 6),
        vec![7, 0xdd, 0xcc, 0xbb, 0xaa, 12]
    );
    assert_eq!(base.read_vec(0x1000, 4), vec![1, 2, 3, 4]);
    assert_eq!(base.read_vec(0x10_0008, 4), vec![8, 9, 10, 11]);
    let mut pages: Vec<u64> = v.pages().map(|(a, _)| a).collect();
    pages.sort();
    assert_eq!(pages, vec![0x1000, 0x10_0000]);
}
