//! History modes: how much of the conversation is sent each turn.
//!
//! MM-Escape's original loop offers `full` and `key` histories; VisEscape's BaseAgent
//! keeps the last 20 observations and actions (§4.1). Long episodes outgrow small context
//! windows, so every mode keeps the system prompt and the current observation and trims
//! only past exchanges, always at exchange boundaries (a tool call is never separated from
//! its result).

use std::fmt;
use std::str::FromStr;

/// Which past exchanges (observation → reply) are sent with each request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum History {
    /// Every exchange.
    Full,
    /// The last `K` exchanges.
    Last(usize),
    /// Key steps — exchanges whose action made progress — plus the last `K` exchanges
    /// (MM-Escape's `key` history).
    Key(usize),
}

impl History {
    /// Indices of the exchanges to send, given whether each one was a key step.
    pub fn select(&self, key: &[bool]) -> Vec<usize> {
        let n = key.len();
        match *self {
            History::Full => (0..n).collect(),
            History::Last(k) => (n.saturating_sub(k)..n).collect(),
            History::Key(k) => (0..n)
                .filter(|&i| key[i] || i.saturating_add(k) >= n)
                .collect(),
        }
    }
}

impl FromStr for History {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("bad history `{s}`: expected full, last:K or key[:K]");
        let (mode, k) = match s.split_once(':') {
            Some((m, k)) => (m, Some(k.parse::<usize>().map_err(|_| bad())?)),
            None => (s, None),
        };
        match (mode, k) {
            ("full", None) => Ok(History::Full),
            ("last", Some(k)) => Ok(History::Last(k)),
            ("key", k) => Ok(History::Key(k.unwrap_or(3))),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for History {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            History::Full => write!(f, "full"),
            History::Last(k) => write!(f, "last:{k}"),
            History::Key(k) => write!(f, "key:{k}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_select_the_right_exchanges() {
        let key = [false, true, false, false, true, false];
        assert_eq!(History::Full.select(&key), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(History::Last(2).select(&key), vec![4, 5]);
        assert_eq!(History::Last(0).select(&key), Vec::<usize>::new());
        assert_eq!(History::Last(10).select(&key), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(History::Key(1).select(&key), vec![1, 4, 5]);
    }

    #[test]
    fn parses_and_prints() {
        for s in ["full", "last:5", "key:2"] {
            assert_eq!(s.parse::<History>().unwrap().to_string(), s);
        }
        assert_eq!("key".parse::<History>().unwrap(), History::Key(3));
        for bad in ["", "last", "last:x", "all", "full:3"] {
            assert!(bad.parse::<History>().is_err(), "{bad}");
        }
    }
}
