//! Timing benchmark of the whole committed experiment set: every `experiments/*.toml` run once,
//! as `dpaudit train` runs it, into a temporary directory. Prints the wall time of each and the
//! total against the target of ten minutes (issue 8); criterion's repeated sampling would take
//! hours here, so this is a plain timing run (`cargo bench --bench train_experiments`).
//!
//! The one-run timing at the paper's scale is in `benches/train.rs` (criterion).

use dpaudit::audit::engine::Observer;
use std::path::Path;
use std::time::Instant;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("experiments/ is committed")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let out = std::env::temp_dir().join(format!("dpaudit-bench-train-{}", std::process::id()));
    let threads = rayon::current_num_threads();
    println!(
        "train_experiments: {} files, {threads} threads",
        files.len()
    );
    let start = Instant::now();
    for f in &files {
        let t = Instant::now();
        let res = dpaudit::train::experiment::run_file(f, &out, &Observer::none());
        let secs = t.elapsed().as_secs_f64();
        let name = f.file_name().unwrap_or_default().to_string_lossy();
        match res {
            Ok(_) => println!("  {name:<32} {secs:8.1} s"),
            Err(e) => println!("  {name:<32} {secs:8.1} s  error: {e}"),
        }
    }
    let total = start.elapsed().as_secs_f64();
    println!(
        "  total {total:.1} s ({:.2} of the 10-minute target)",
        total / 600.0
    );
    let _ = std::fs::remove_dir_all(&out);
}
