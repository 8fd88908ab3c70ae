//! Memory as an output of `equiv`: the final contents of global memory and LDS, compared
//! byte by byte (not the sets of stores: a store of the byte already there changes nothing),
//! and the initial bytes a counterexample needs, written into its STATE.json.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::sparse::{SparseMemory, PAGE};
use crate::wave::WaveState;

/// The bytes where two memories differ: address → (byte in `a`, byte in `b`).
pub fn differing(a: &SparseMemory, b: &SparseMemory) -> BTreeMap<u64, (u8, u8)> {
    let pages: BTreeSet<u64> = a
        .pages()
        .chain(b.pages())
        .map(|(p, _)| p & !(PAGE as u64 - 1))
        .collect();
    let mut out = BTreeMap::new();
    for p in pages {
        let (x, y) = (a.read_vec(p, PAGE), b.read_vec(p, PAGE));
        if x == y {
            continue;
        }
        for (i, (&u, &v)) in x.iter().zip(&y).enumerate() {
            if u != v {
                out.insert(p + i as u64, (u, v));
            }
        }
    }
    out
}

/// Whether two memories hold the same bytes.
pub fn same(a: &SparseMemory, b: &SparseMemory) -> bool {
    if a.is_empty() && b.is_empty() {
        return true;
    }
    differing(a, b).is_empty()
}

/// Byte runs as `[{"addr": "0x..", "hex": ".."}]`, consecutive addresses merged.
pub fn ranges(bytes: &BTreeMap<u64, u8>) -> Value {
    let mut runs: Vec<(u64, Vec<u8>)> = Vec::new();
    for (&a, &v) in bytes {
        match runs.last_mut() {
            Some((s, b)) if *s + b.len() as u64 == a => b.push(v),
            _ => runs.push((a, vec![v])),
        }
    }
    Value::Array(
        runs.into_iter()
            .map(|(a, b)| {
                let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
                json!({"addr": format!("0x{a:x}"), "hex": h})
            })
            .collect(),
    )
}

/// The differing bytes of two final states, per space (`memory`, `lds`), as two JSON
/// values: A's bytes there and B's.
pub fn differences(a: &WaveState, b: &WaveState) -> BTreeMap<String, (Value, Value)> {
    let mut out = BTreeMap::new();
    for (name, x, y) in [("memory", &a.memory, &b.memory), ("lds", &a.lds, &b.lds)] {
        let d = differing(x, y);
        if d.is_empty() {
            continue;
        }
        let left: BTreeMap<u64, u8> = d.iter().map(|(&k, &(u, _))| (k, u)).collect();
        let right: BTreeMap<u64, u8> = d.iter().map(|(&k, &(_, v))| (k, v)).collect();
        out.insert(name.to_string(), (ranges(&left), ranges(&right)));
    }
    out
}

/// A counterexample's STATE.json: the registers as `wave::json::to_json` writes them, and
/// the initial memory and LDS bytes (every non-zero byte; the rest read as zero).
pub fn state_json(w: &WaveState) -> Value {
    let mut v = crate::wave::json::to_json(w);
    for (key, m) in [("memory", &w.memory), ("lds", &w.lds)] {
        let mut bytes = BTreeMap::new();
        for (p, page) in m.pages() {
            for (i, &b) in page.iter().enumerate() {
                if b != 0 {
                    bytes.insert(p + i as u64, b);
                }
            }
        }
        if let Some(o) = v.as_object_mut() {
            o.insert(key.to_string(), ranges(&bytes));
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differing_bytes_and_runs() {
        let mut a = SparseMemory::new();
        let b = SparseMemory::new();
        a.write(0x1000, &[1, 2]);
        a.write(0x2ffe, &[0, 0]);
        let d = differing(&a, &b);
        assert_eq!(d.len(), 2);
        assert_eq!(d.get(&0x1001), Some(&(2, 0)));
        assert!(!same(&a, &b));
        let left: BTreeMap<u64, u8> = d.iter().map(|(&k, &(u, _))| (k, u)).collect();
        assert_eq!(ranges(&left), json!([{"addr": "0x1000", "hex": "0102"}]));
    }
}
