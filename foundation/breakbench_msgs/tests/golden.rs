//! Golden parity with the real peer (REQ-MSG-CDR): CDR bytes made by rclpy
//! (`serialize_message`, Fast DDS's Fast CDR) for every built-in type the
//! ROS 2 Jazzy wheels have, written by `tests/interop/msgs_golden.py`.
//! Each case must decode to the values rclpy reads back from the same
//! bytes, and re-encode to the same bytes with the padding masked (Fast CDR
//! leaves padding uninitialised; Fast DDS also appends some of it to the end
//! of some messages, see `trailing_allowance`).
//!
//! Needs `BREAKBENCH_MSGS_GOLDEN_DIR` (scripts/interop.sh sets it); skipped
//! with a notice without it.

use std::collections::BTreeMap;
use std::sync::Arc;

use breakbench_msgs::def::{ArrayKind, Primitive};
use breakbench_msgs::registry::{Elem, ResolvedField};
use breakbench_msgs::{decode, encode, padding_mask, ResolvedType, TypeRegistry, Value};
use serde_json::Value as J;

/// Floats come as Python's `repr` (exact, shortest round-trip; `nan`,
/// `inf`, `-inf`), parsed by Rust's correctly rounded parser.
fn float_json(j: &J) -> Option<f64> {
    j.as_str()?.parse().ok()
}

fn same_f64(a: f64, j: &J) -> bool {
    match float_json(j) {
        Some(b) if a.is_nan() => b.is_nan(),
        Some(b) => a.to_bits() == b.to_bits(),
        None => false,
    }
}

fn same_f32(a: f32, j: &J) -> bool {
    match float_json(j) {
        Some(b) if a.is_nan() => b.is_nan(),
        // rclpy's float is the exact f32 value as a double.
        Some(b) => f64::from(a).to_bits() == b.to_bits(),
        None => false,
    }
}

fn check_struct(ty: &ResolvedType, v: &Value, j: &J, path: &str) -> Result<(), String> {
    let Value::Struct(fs) = v else {
        return Err(format!("{path}: not a struct"));
    };
    let J::Object(jo) = j else {
        return Err(format!("{path}: JSON is not an object"));
    };
    if fs.len() != jo.len() || ty.fields.len() != fs.len() {
        return Err(format!(
            "{path}: {} fields decoded, {} in rclpy's value",
            fs.len(),
            jo.len()
        ));
    }
    for (f, (name, fv)) in ty.fields.iter().zip(fs) {
        let p = if path.is_empty() {
            name.to_string()
        } else {
            format!("{path}.{name}")
        };
        let fj = jo
            .get(&**name)
            .ok_or_else(|| format!("{p}: missing in JSON"))?;
        check_field(f, fv, fj, &p)?;
    }
    Ok(())
}

fn check_field(f: &ResolvedField, v: &Value, j: &J, path: &str) -> Result<(), String> {
    if f.array == ArrayKind::Single {
        return check_elem(&f.elem, v, j, path);
    }
    let J::Array(ja) = j else {
        return Err(format!("{path}: JSON is not an array"));
    };
    let n = v
        .seq_len()
        .ok_or_else(|| format!("{path}: not a sequence"))?;
    if n != ja.len() {
        return Err(format!(
            "{path}: {n} elements decoded, rclpy has {}",
            ja.len()
        ));
    }
    for (i, ej) in ja.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let ok = match v {
            Value::F32Seq(x) => same_f32(x[i], ej),
            Value::F64Seq(x) => same_f64(x[i], ej),
            Value::U8Seq(x) => ej.as_u64() == Some(u64::from(x[i])),
            Value::Seq(x) => {
                check_elem(&f.elem, &x[i], ej, &p)?;
                true
            }
            _ => false,
        };
        if !ok {
            return Err(format!("{p}: decoded {v:?}[{i}], rclpy has {ej}"));
        }
    }
    Ok(())
}

fn check_elem(e: &Elem, v: &Value, j: &J, path: &str) -> Result<(), String> {
    let ok = match (e, v) {
        (Elem::Msg(t), _) => return check_struct(t, v, j, path),
        (Elem::Prim(Primitive::F32), Value::F32(x)) => same_f32(*x, j),
        (Elem::Prim(Primitive::F64), Value::F64(x)) => same_f64(*x, j),
        (Elem::Prim(Primitive::Bool), Value::Bool(x)) => j.as_bool() == Some(*x),
        (Elem::Prim(_), Value::I8(x)) => j.as_i64() == Some((*x).into()),
        (Elem::Prim(_), Value::U8(x)) => j.as_u64() == Some((*x).into()),
        (Elem::Prim(_), Value::I16(x)) => j.as_i64() == Some((*x).into()),
        (Elem::Prim(_), Value::U16(x)) => j.as_u64() == Some((*x).into()),
        (Elem::Prim(_), Value::I32(x)) => j.as_i64() == Some((*x).into()),
        (Elem::Prim(_), Value::U32(x)) => j.as_u64() == Some((*x).into()),
        (Elem::Prim(_), Value::I64(x)) => j.as_i64() == Some(*x),
        (Elem::Prim(_), Value::U64(x)) => j.as_u64() == Some(*x),
        (Elem::String(_) | Elem::WString(_), Value::String(s)) => j.as_str() == Some(s.as_str()),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{path}: decoded {v:?}, rclpy has {j}"))
    }
}

/// Re-encode and compare with the peer's bytes, padding masked; returns the
/// number of masked bytes.
fn check_bytes(ty: &Arc<ResolvedType>, v: &Value, peer: &[u8]) -> Result<usize, String> {
    let ours = encode(ty, v).map_err(|e| e.to_string())?;
    // The mask runs past our encoding over the trailing bytes a Fast DDS
    // peer may append (all padding).
    let mask = padding_mask(ty, v).map_err(|e| e.to_string())?;
    if peer.len() < ours.len() || peer.len() > mask.len() {
        return Err(format!(
            "lengths: ours {} bytes (a peer may append up to {}), rclpy's {}",
            ours.len(),
            mask.len() - ours.len(),
            peer.len()
        ));
    }
    let mut masked = peer.len() - ours.len();
    for (i, (a, b)) in ours.iter().zip(peer).enumerate() {
        if mask[i] {
            masked += 1;
            continue;
        }
        if a != b {
            return Err(format!(
                "byte {i} (body offset {}): ours {a:#04x}, rclpy's {b:#04x}",
                i as i64 - 4
            ));
        }
    }
    Ok(masked)
}

#[test]
fn rclpy_bytes_decode_to_rclpy_values_and_reencode_to_the_same_bytes() {
    let Some(dir) = std::env::var_os("BREAKBENCH_MSGS_GOLDEN_DIR") else {
        println!(
            "SKIPPED: set BREAKBENCH_MSGS_GOLDEN_DIR to a directory written by \
             tests/interop/msgs_golden.py (scripts/interop.sh does)"
        );
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    let reg = TypeRegistry::builtin();
    let skipped: BTreeMap<String, String> =
        serde_json::from_slice(&std::fs::read(dir.join("skipped.json")).unwrap()).unwrap();
    let mut per_type: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let (mut n_cases, mut n_bytes, mut n_masked) = (0, 0, 0);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cdr"))
        .collect();
    files.sort();
    for cdr in files {
        let case = cdr.file_stem().unwrap().to_string_lossy().to_string();
        let peer = std::fs::read(&cdr).unwrap();
        let meta: J =
            serde_json::from_slice(&std::fs::read(cdr.with_extension("json")).unwrap()).unwrap();
        let tname = meta["type"].as_str().unwrap().to_string();
        let ty = reg.resolve(&tname).unwrap();
        *per_type.entry(tname.clone()).or_default() += 1;
        n_cases += 1;
        n_bytes += peer.len();
        let r = decode(&ty, &peer)
            .map_err(|e| format!("decode: {e}"))
            .and_then(|v| {
                check_struct(&ty, &v, &meta["value"], "")?;
                check_bytes(&ty, &v, &peer)
            });
        match r {
            Ok(m) => n_masked += m,
            Err(e) => failures.push(format!("{case}: {e}")),
        }
    }
    // Every built-in type has cases, or the script said why not.
    let missing: Vec<String> = reg
        .iter()
        .map(|d| d.name.to_string())
        .filter(|n| !per_type.contains_key(n) && !skipped.contains_key(n))
        .collect();
    println!(
        "golden: {n_cases} rclpy values of {} types ({n_bytes} bytes, {n_masked} padding bytes masked); \
         {} failure(s); skipped by the script: {skipped:?}",
        per_type.len(),
        failures.len()
    );
    assert!(
        missing.is_empty(),
        "built-in types without golden cases: {missing:?}"
    );
    assert!(
        failures.is_empty(),
        "{} of {n_cases} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(n_cases >= 5 * per_type.len());
}
