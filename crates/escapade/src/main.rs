//! `escapade`: the command line of the escapade arena (see `escapade --help`).
//!
//! Parses arguments, calls one function per subcommand, and maps errors to exit code 1
//! with an `error: …` line on standard error.

mod cli; // the clap types: subcommands and flags
mod commands; // one function per subcommand
mod hf; // `export --format hf`: Parquet and a dataset card for Hugging Face `datasets`
mod worlds; // the world registry

#[cfg(test)]
mod tests; // every subcommand against the testkit's counter world

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};
use commands::Ctx;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let worlds = match worlds::worlds() {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    if let Command::Mcp(args) = &cli.command {
        // standard output is the MCP transport: nothing else may hold or write it
        drop(worlds);
        return exit_code(commands::mcp(args, cli.quiet));
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut ctx = Ctx {
        worlds: &worlds,
        out: &mut out,
        quiet: cli.quiet,
    };
    let result = match &cli.command {
        Command::List(args) => commands::list(&mut ctx, args),
        Command::Gen(args) => commands::gen_scenarios(&mut ctx, args),
        Command::Import(args) => commands::import(&mut ctx, args),
        Command::Suite(args) => commands::suite(&mut ctx, args),
        Command::Run(args) => commands::run(&mut ctx, args),
        Command::Resume(args) => commands::resume(&mut ctx, args),
        Command::Estimate(args) => commands::estimate(&mut ctx, args),
        Command::Cache(args) => commands::cache(&mut ctx, args),
        Command::Report(args) => commands::report(&mut ctx, args),
        Command::Export(args) => commands::export(&mut ctx, args),
        Command::Compare(args) => commands::compare(&mut ctx, args),
        Command::Paper(args) => commands::paper(&mut ctx, args),
        Command::Judge(args) => commands::judge(&mut ctx, args),
        Command::Show(args) => commands::show(&mut ctx, args),
        // the web game reads no input; the terminal's is interrupted by a stop signal
        Command::Play(args) if args.web => commands::play(&mut ctx, args, &mut std::io::empty()),
        Command::Play(args) => {
            commands::play(&mut ctx, args, &mut commands::StoppableInput::stdin())
        }
        Command::View(args) => commands::view(&mut ctx, args),
        Command::Serve(args) => commands::serve(&mut ctx, args),
        Command::Check(args) => commands::check(&mut ctx, args),
        Command::Schema => commands::schema(&mut ctx),
        Command::Setup(args) => commands::setup(&mut ctx, args),
        Command::Bench(args) => commands::bench(&mut ctx, args),
        // served above, before standard output was locked
        Command::Mcp(args) => commands::mcp(args, cli.quiet),
    };
    let _ = out.flush();
    exit_code(result)
}

/// Exit code 1 with an `error: …` line for a failed command.
fn exit_code(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) if e.downcast_ref::<commands::Interrupted>().is_some() => {
            eprintln!("{e}");
            ExitCode::from(commands::Interrupted::EXIT_CODE)
        }
        Err(e) => {
            eprintln!("error: {}", message(&e));
            ExitCode::FAILURE
        }
    }
}

/// An error and its causes on one line, `: `-separated, each said once: a cause whose
/// words already end the line (an error that prints its source in its own message) is
/// not repeated — `cannot open runs/x: no such run directory`, not `…: no such run
/// directory: no such run directory`.
fn message(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if line.is_empty() {
            line = text;
        } else if !line.ends_with(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
    }
    line
}

/// `escapade list | head` closes the pipe early; that is not an error.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
