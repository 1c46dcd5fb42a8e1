//! The protocol of command audits, driven with `sh` one-liners: what the command is told, and
//! every way it can fail.

use super::{
    assemble, invocation_seed, ChunkPlan, ChunkSamples, Duration, Error, Instant, Invocation,
    Observer, OutputFormat, PathBuf, Result, SampleSet, SamplerCommand, Shard, Side,
};

fn sh(script: &str) -> SamplerCommand {
    SamplerCommand {
        argv: vec!["sh".into(), "-c".into(), script.into()],
        dir: PathBuf::from("."),
        output: OutputFormat::Auto,
        dim: None,
        timeout: Some(20.0),
        jobs: 2,
    }
}

fn inv(count: u64) -> Invocation {
    Invocation {
        side: Side::B,
        chunk: 3,
        count,
        seed: 12345,
    }
}

fn err_text(r: Result<ChunkSamples>) -> String {
    match r {
        Ok(c) => panic!("expected an error, got {} samples", c.samples.len()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_command_is_told_side_count_seed_and_chunk() {
    // Prints its environment and placeholders as one sample row of four numbers.
    let c = SamplerCommand {
        argv: vec![
            "sh".into(),
            "-c".into(),
            "side=1; [ \"$DPAUDIT_SIDE\" = a ] && side=0; [ \"$1\" = \"$DPAUDIT_SIDE\" ] || exit 9; \
             echo \"$side,$DPAUDIT_COUNT,$DPAUDIT_CHUNK,$2\""
                .into(),
            "sh".into(),
            "{side}".into(),
            "{seed}".into(),
        ],
        ..sh("")
    };
    let got = c.run_one(&inv(1)).unwrap();
    assert_eq!(got.samples.row(0), &[1.0, 1.0, 3.0, 12345.0]);
}

#[test]
fn seeds_differ_by_side_and_chunk_and_follow_the_run_seed() {
    let s = |seed, side, c| invocation_seed(seed, side, c);
    assert_ne!(s(1, Side::A, 0), s(1, Side::B, 0));
    assert_ne!(s(1, Side::A, 0), s(1, Side::A, 1));
    assert_ne!(s(1, Side::A, 0), s(2, Side::A, 0));
    assert_eq!(s(1, Side::A, 7), s(1, Side::A, 7));
    for c in 0..100 {
        assert!(s(5, Side::B, c) < 1 << 63);
    }
}

#[test]
fn the_plan_cuts_chunks_and_shards_own_them() {
    let p = ChunkPlan::new(10, 4, 1).unwrap();
    assert_eq!(p.chunks(), 3);
    assert_eq!((p.count(0), p.count(1), p.count(2)), (4, 4, 2));
    let all = p.invocations(Shard::WHOLE);
    assert_eq!(all.len(), 6);
    let s1 = p.invocations(Shard::new(0, 2).unwrap());
    let s2 = p.invocations(Shard::new(1, 2).unwrap());
    assert_eq!(s1.len() + s2.len(), 6);
    assert!(s1.iter().all(|i| i.chunk % 2 == 0));
    assert!(ChunkPlan::new(1, 1, 0).is_err());
    assert!(ChunkPlan::new(10, 0, 0).is_err());
    assert!(ChunkPlan::new(u64::MAX, 1, 0).is_err());
}

#[test]
fn a_crash_is_an_error_with_its_status_and_stderr() {
    let e = err_text(sh("echo 'boom: bad sigma' >&2; exit 3").run_one(&inv(2)));
    assert!(e.contains("exited with status 3"), "{e}");
    assert!(e.contains("boom: bad sigma"), "{e}");
    assert!(e.contains("side b, chunk 3"), "{e}");
}

#[test]
fn a_missing_program_is_an_error() {
    let c = SamplerCommand {
        argv: vec!["/nonexistent/dpaudit-sampler".into()],
        ..sh("")
    };
    let e = err_text(c.run_one(&inv(2)));
    assert!(e.contains("cannot start"), "{e}");
}

#[test]
fn a_hang_is_killed_at_the_timeout() {
    let c = SamplerCommand {
        timeout: Some(0.3),
        ..sh("sleep 30; echo 1")
    };
    let t = Instant::now();
    let e = err_text(c.run_one(&inv(1)));
    assert!(e.contains("timeout_seconds = 0.3"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(10));
}

#[test]
fn the_run_time_limit_kills_a_hang() {
    let c = SamplerCommand {
        timeout: None,
        ..sh("sleep 30; echo 1")
    };
    let t = Instant::now();
    let r = crate::limits::with_deadline(Some(0.3), || c.run_one(&inv(1)));
    assert!(matches!(r, Err(Error::TimeLimit { .. })), "{r:?}");
    assert!(t.elapsed() < Duration::from_secs(10));
}

#[test]
fn garbage_is_refused_with_its_line_and_column() {
    let e = err_text(sh("printf '1.5\\n2.5\\nhello\\n'").run_one(&inv(3)));
    assert!(e.contains("line 3"), "{e}");
    assert!(e.contains("column 1"), "{e}");
}

#[test]
fn a_wrong_count_or_dimension_is_refused() {
    let e = err_text(sh("printf '1\\n2\\n'").run_one(&inv(3)));
    assert!(e.contains("printed 2 samples, expected 3"), "{e}");
    let e = err_text(sh("true").run_one(&inv(3)));
    assert!(e.contains("printed nothing"), "{e}");
    let c = SamplerCommand {
        dim: Some(2),
        ..sh("printf '1\\n2\\n'")
    };
    let e = err_text(c.run_one(&inv(2)));
    assert!(e.contains("dimension 1"), "{e}");
}

#[test]
fn npy_output_is_read_exactly() {
    let bytes = super::super::samples::SampleSet::from_rows(1, vec![0.1, -2.5e-300])
        .unwrap()
        .values()
        .to_vec();
    let dir = std::env::temp_dir().join(format!("dpaudit-cmd-npy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("x.npy");
    SampleSet::from_rows(1, bytes.clone())
        .unwrap()
        .write_npy(&f)
        .unwrap();
    let c = sh(&format!("cat '{}'", f.display()));
    let got = c.run_one(&inv(2)).unwrap();
    assert_eq!(got.samples.values(), &bytes[..]);
    let text = SamplerCommand {
        output: OutputFormat::Text,
        ..c
    };
    assert!(text.run_one(&inv(2)).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn run_returns_chunks_in_plan_order_and_the_first_failure() {
    let plan = ChunkPlan::new(7, 2, 4).unwrap();
    // Later chunks finish first: order must not depend on it.
    let c = sh("sleep 0.0$((9 - DPAUDIT_CHUNK)); i=0; while [ $i -lt $DPAUDIT_COUNT ]; do echo \"$DPAUDIT_CHUNK.$i\"; i=$((i+1)); done");
    let got = c.run(&plan, Shard::WHOLE, &Observer::none()).unwrap();
    let (a, b) = assemble(&plan, &got, "x").unwrap();
    assert_eq!(a.values(), &[0.0, 0.1, 1.0, 1.1, 2.0, 2.1, 3.0]);
    assert_eq!(a.values(), b.values());
    let bad = sh("[ $DPAUDIT_CHUNK = 2 ] && exit 4; echo 1; echo 2");
    let e = bad.run(&plan, Shard::WHOLE, &Observer::none()).unwrap_err();
    assert!(e.to_string().contains("status 4"), "{e}");
}

#[test]
fn assemble_refuses_a_missing_chunk() {
    let plan = ChunkPlan::new(4, 2, 4).unwrap();
    let c = sh("echo 1; echo 2");
    let got = c
        .run(&plan, Shard::new(0, 2).unwrap(), &Observer::none())
        .unwrap();
    assert!(assemble(&plan, &got, "x").is_err());
}
