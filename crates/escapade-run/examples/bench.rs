//! Prints the model harness's self-check: `cargo run --release -p escapade-run --example
//! bench [-- --json]` (what `escapade bench` prints).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let report = escapade_run::bench::harness_benchmarks(&Default::default())?;
    if std::env::args().any(|a| a == "--json") {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{report}");
    }
    if !report.passed() {
        std::process::exit(1);
    }
    Ok(())
}
