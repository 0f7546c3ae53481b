//! Code execution: `python_exec`, and the seeded Python programs that `Code_Python`
//! items and unconnected code inputs carry.

use rand::Rng as _;

use escapade_core::seed::Rng;

use super::words::phrase;
use super::{Cx, ExecError, Seed, open, output};
use crate::template::{NodeKind, Template};
use crate::value::PortType::{CodePython, Text};

pub(super) const PYTHON_EXEC: Template = Template {
    id: "python_exec",
    kind: NodeKind::Tool,
    family: "code execution",
    title: "Python Interpreter",
    semantics: "Runs the Python 3 program in a sandbox (no network, no files, short time \
        limit) with the input text as standard input (UTF-8), and returns what it prints \
        to standard output without the line breaks (`\\n`, `\\r`) at its very end; every \
        other character, leading or trailing spaces included, is kept.",
    inputs: &[
        open("code", CodePython, "the Python 3 source to run"),
        open(
            "input",
            Text,
            "the text given to the program on standard input",
        ),
    ],
    outputs: &[output(
        "stdout",
        Text,
        "the program's standard output without its final line breaks",
    )],
};

pub(super) fn execute(cx: &Cx<'_>, v: &[String]) -> Option<Result<Vec<String>, ExecError>> {
    if cx.t.id != "python_exec" {
        return None;
    }
    Some(
        cx.runner
            .run(&v[0], &v[1])
            .map(|out| vec![out.trim_end_matches(['\n', '\r']).to_string()])
            .map_err(ExecError::from),
    )
}

pub(super) fn seed(s: &mut Seed<'_>) -> Option<Result<(), ExecError>> {
    if s.t.id != "python_exec" {
        return None;
    }
    s.fill(0, program);
    s.fill(1, phrase);
    Some(Ok(()))
}

/// Reads all of standard input as UTF-8 into `s`, stripped of surrounding whitespace.
const PRELUDE: &str = "import sys\n\
    sys.stdin.reconfigure(encoding=\"utf-8\", errors=\"replace\")\n\
    sys.stdout.reconfigure(encoding=\"utf-8\")\n\
    s = sys.stdin.read().strip()\n";

/// A short deterministic program from one of ten families. Each reads standard input
/// and prints one line, and is total: any input, including the empty one, works.
pub(super) fn program(rng: &mut Rng) -> String {
    let body = match rng.random_range(0..10) {
        0 => "print(s[::-1])".to_string(),
        1 => "print(s.upper() + \"#\" + str(len(s)))".to_string(),
        2 => {
            let k = rng.random_range(1..26);
            format!(
                "out = []\n\
                 for c in s:\n\
                 \x20   if \"a\" <= c <= \"z\":\n\
                 \x20       out.append(chr((ord(c) - 97 + {k}) % 26 + 97))\n\
                 \x20   elif \"A\" <= c <= \"Z\":\n\
                 \x20       out.append(chr((ord(c) - 65 + {k}) % 26 + 65))\n\
                 \x20   else:\n\
                 \x20       out.append(c)\n\
                 print(\"\".join(out))"
            )
        }
        3 => {
            let m = rng.random_range(97..10_000);
            format!("print(sum(ord(c) for c in s) % {m})")
        }
        4 => {
            let k = rng.random_range(2..=4);
            let o = rng.random_range(0..k);
            format!("print(s[{o}::{k}])")
        }
        5 => "print(\" \".join(sorted(s.split())))".to_string(),
        6 => "print(\"-\".join(str(len(w)) for w in s.split()))".to_string(),
        7 => "print(sum(1 for c in s.lower() if c in \"aeiou\"))".to_string(),
        8 => "print(\" \".join(reversed(s.split())).title())".to_string(),
        _ => {
            let b = rng.random_range(31..258);
            let m = rng.random_range(10_007..1_000_000);
            format!(
                "h = 0\n\
                 for c in s:\n\
                 \x20   h = (h * {b} + ord(c)) % {m}\n\
                 print(h)"
            )
        }
    };
    format!("{PRELUDE}{body}")
}
