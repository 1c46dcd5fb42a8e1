//! Unit tests of the samples audit's readers and split (the end-to-end audits are in
//! tests/audit_samples.rs).

use std::path::Path;

use super::read::{npy_bytes, parse_csv, parse_npy};
use super::{permutation, thresholds, Dtype, SampleSet};

fn p() -> &'static Path {
    Path::new("x.npy")
}

/// A v1.0 `.npy` with the given header dict text (padded) and data bytes.
fn npy_with(header: &str, data: &[u8]) -> Vec<u8> {
    let mut h = header.to_string();
    let unpadded = 10 + h.len() + 1;
    h.extend(std::iter::repeat_n(' ', (64 - unpadded % 64) % 64));
    h.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(h.len() as u16).to_le_bytes());
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(data);
    out
}

#[test]
fn npy_round_trip_keeps_every_bit() {
    let v = vec![
        0.1,
        -0.0,
        f64::MIN_POSITIVE,
        1e308,
        f64::NAN,
        3.0,
        5.5,
        -7.25,
    ];
    let bytes = npy_bytes(2, &v);
    let s = parse_npy(&bytes, p()).unwrap();
    assert_eq!(s.dim(), 2);
    assert_eq!(s.len(), 4);
    let back: Vec<u64> = (0..4)
        .flat_map(|i| s.row(i).to_vec())
        .map(f64::to_bits)
        .collect();
    let want: Vec<u64> = v.iter().map(|x| x.to_bits()).collect();
    assert_eq!(back, want);
    assert_eq!(s.dtype(), Dtype::F64);
}

#[test]
fn npy_big_endian_and_small_types_convert_exactly() {
    let data: Vec<u8> = [1.5f64, -2.0]
        .iter()
        .flat_map(|x| x.to_be_bytes())
        .collect();
    let s = parse_npy(
        &npy_with(
            "{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }",
            &data,
        ),
        p(),
    )
    .unwrap();
    assert_eq!((s.row(0)[0], s.row(1)[0]), (1.5, -2.0));
    let data: Vec<u8> = [7i32, -9].iter().flat_map(|x| x.to_le_bytes()).collect();
    let s = parse_npy(
        &npy_with(
            "{'shape': (1, 2), 'descr': '<i4', 'fortran_order': False}",
            &data,
        ),
        p(),
    )
    .unwrap();
    assert_eq!(s.row(0), &[7.0, -9.0]);
    assert_eq!(s.dtype(), Dtype::Int);
    let data: Vec<u8> = 0.1f32.to_le_bytes().to_vec();
    let s = parse_npy(
        &npy_with(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
            &data,
        ),
        p(),
    )
    .unwrap();
    assert_eq!(s.row(0)[0], f64::from(0.1f32));
    assert_eq!(s.dtype(), Dtype::F32);
}

#[test]
fn npy_refusals_name_what_is_wrong() {
    let good = npy_bytes(1, &[1.0, 2.0]);
    let msg = |b: &[u8]| parse_npy(b, p()).unwrap_err().to_string();
    let mut bad = good.clone();
    bad[1] = b'X';
    assert!(msg(&bad).contains("byte 0: bad magic"), "{}", msg(&bad));
    let mut bad = good.clone();
    bad[6] = 4;
    assert!(msg(&bad).contains("format version 4.0"), "{}", msg(&bad));
    let e = msg(&good[..good.len() - 3]);
    assert!(
        e.contains("truncated") && e.contains("needs 16 data bytes"),
        "{e}"
    );
    let e = msg(&npy_with(
        "{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }",
        &[0, 0],
    ));
    assert!(e.contains("field 'descr'") && e.contains("<u2"), "{e}");
    let e = msg(&npy_with(
        "{'descr': '<f8', 'fortran_order': True, 'shape': (1,), }",
        &[0; 8],
    ));
    assert!(e.contains("fortran_order"), "{e}");
    let e = msg(&npy_with(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1), }",
        &[0; 8],
    ));
    assert!(e.contains("3 dimensions"), "{e}");
    let e = msg(&npy_with(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (0,), }",
        &[],
    ));
    assert!(e.contains("empty"), "{e}");
    let e = msg(&npy_with(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
        &[0; 9],
    ));
    assert!(e.contains("1 bytes after the data"), "{e}");
    let big = (1i64 << 53) + 1;
    let e = msg(&npy_with(
        "{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }",
        &big.to_le_bytes(),
    ));
    assert!(e.contains("element 0") && e.contains("2^53"), "{e}");
    let e = msg(&npy_with("{'descr': '<f8', 'shape': (1,), }", &[0; 8]));
    assert!(e.contains("missing field 'fortran_order'"), "{e}");
}

#[test]
fn csv_header_comments_and_bad_cells() {
    let s = parse_csv("# made by numpy\nx,y\n1,2\n\n3,4.5\n", Path::new("a.csv")).unwrap();
    assert_eq!((s.len(), s.dim()), (2, 2));
    assert_eq!(s.row(1), &[3.0, 4.5]);
    // A numeric first row is data.
    let s = parse_csv("1e-3\n-inf\n", Path::new("a.csv")).unwrap();
    assert_eq!(s.len(), 2);
    assert_eq!(s.row(1)[0], f64::NEG_INFINITY);
    let e = parse_csv("x\n1\n2\nabc\n4\n5,6\n", Path::new("a.csv"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 4, column 1: \"abc\""), "{e}");
    assert!(e.contains("line 6: 2 columns, expected 1"), "{e}");
    assert!(e.contains("a.csv") && e.contains("2 bad"), "{e}");
    let e = parse_csv("x,y\n", Path::new("a.csv"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("no samples"), "{e}");
}

#[test]
fn split_permutation_is_a_seeded_permutation() {
    let a = permutation(1000, 7, 0);
    let mut s = a.clone();
    s.sort_unstable();
    assert_eq!(s, (0..1000).collect::<Vec<_>>());
    assert_eq!(a, permutation(1000, 7, 0));
    assert_ne!(a, permutation(1000, 8, 0));
    assert_ne!(a, permutation(1000, 7, 1));
}

#[test]
fn thresholds_are_capped_distinct_pilot_values() {
    let ta: Vec<f64> = (0..1000).map(f64::from).collect();
    let t = thresholds(&ta, &[0.5, -0.0, 0.0]);
    assert_eq!(t.len(), super::MAX_THRESHOLDS);
    assert_eq!(t[0], -0.0);
    assert_eq!(*t.last().unwrap(), 999.0);
    assert!(t.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(thresholds(&[1.0, 1.0], &[2.0]), vec![1.0, 2.0]);
}

#[test]
fn from_rows_checks_its_shape() {
    assert!(SampleSet::from_rows(0, vec![1.0]).is_err());
    assert!(SampleSet::from_rows(2, vec![1.0, 2.0, 3.0]).is_err());
    assert!(SampleSet::from_rows(1, vec![]).is_err());
    assert_eq!(SampleSet::from_rows(3, vec![0.0; 6]).unwrap().len(), 2);
}

#[test]
fn mutated_npy_and_csv_never_panic() {
    use rand::Rng;
    let good = npy_bytes(2, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let mut rng = crate::mechanisms::stream::chunk_rng(26, 0);
    let mut parsed = 0;
    for _ in 0..5000 {
        let mut b = good.clone();
        for _ in 0..1 + rng.next_u64() % 3 {
            let i = (rng.next_u64() % b.len() as u64) as usize;
            match rng.next_u64() % 3 {
                0 => b[i] = rng.next_u64() as u8,
                1 => b.truncate(i),
                _ => b.insert(i, rng.next_u64() as u8),
            }
        }
        if parse_npy(&b, p()).is_ok() {
            parsed += 1;
        }
        let text = String::from_utf8_lossy(&b);
        let _ = parse_csv(&text, Path::new("m.csv"));
    }
    // Most mutations are refused; a few (a changed data byte) still parse.
    assert!(parsed > 0 && parsed < 5000, "{parsed}");
}
