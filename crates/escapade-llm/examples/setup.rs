//! Installs the local model into the cache, as `escapade setup` does:
//! `cargo run -p escapade-llm --example setup` (honours `ESCAPADE_CACHE`).

fn main() {
    let options = escapade_llm::LocalOptions::default();
    match escapade_llm::local::install(&options, &mut |line| eprintln!("{line}")) {
        Ok(install) => println!("{install:#?}"),
        Err(error) => {
            eprintln!("error: {error}");
            std::process::exit(1);
        }
    }
}
