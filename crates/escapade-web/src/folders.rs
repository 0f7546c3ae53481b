//! Run ids, confined to the folders the viewer was given, listing the runs under them,
//! and every file of a run confined to the run.
//!
//! A run's id is the index of the folder it was found under and its path below that
//! folder, joined with `/` (`0/2026-…-tools-random-1a2b`; `0` alone when the folder is
//! itself a run). [`Folders::resolve`] turns an id back into a directory only when every
//! part is a plain name (no `..`, no root, no backslash), the directory's real path
//! (symbolic links followed) still lies under the folder's real path, and it holds a run.
//! Listing does not follow symbolic links, so a link cannot pull in a folder from
//! elsewhere, nor loop.
//!
//! Inside a run, every file the viewer reads — `run.toml`, `episodes.jsonl`, a trajectory,
//! a picture, what the report reads — goes through [`run_file`]: its real path must lie
//! inside the run's own directory and be a regular file. A link that leads out of the run
//! (a picture linked to a file elsewhere on the machine, a trajectory folder linked to
//! another) is refused, and so is a named pipe or a device, which a read would wait on
//! forever. The check resolves the path and then the file is read by its resolved path;
//! a person who can write into the served folder and swaps a directory for a link between
//! the two is outside what this guards (they can already change what the viewer shows).

use std::path::{Component, Path, PathBuf};

use axum::http::StatusCode;
use escapade_run::rundir::{EPISODES, MEDIA, RUN_TOML, TRAJECTORIES};
use escapade_run::suite::file_stem;

use crate::error::{Problem, WebError};

/// How deep below a folder the listing looks for runs.
const MAX_DEPTH: usize = 8;

/// The folders the viewer serves, in the order given.
#[derive(Debug, Clone)]
pub struct Folders {
    roots: Vec<PathBuf>,
}

/// A run found under a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Its id (see the module docs).
    pub id: String,
    /// Its directory.
    pub path: PathBuf,
}

impl Folders {
    /// The folders `dirs`, each of which must exist.
    pub fn new(dirs: &[PathBuf]) -> Result<Folders, WebError> {
        let roots = dirs
            .iter()
            .map(|d| {
                let real = std::fs::canonicalize(d).map_err(|source| WebError::Folder {
                    path: d.clone(),
                    source,
                })?;
                if real.is_dir() {
                    Ok(real)
                } else {
                    Err(WebError::Folder {
                        path: d.clone(),
                        source: std::io::Error::new(
                            std::io::ErrorKind::NotADirectory,
                            "not a directory",
                        ),
                    })
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Folders { roots })
    }

    /// The folders' real paths.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Every run under the folders, by id (folder order, then path order).
    pub fn list(&self) -> Vec<Found> {
        let mut found = Vec::new();
        for (i, root) in self.roots.iter().enumerate() {
            walk(root, &i.to_string(), 0, &mut found);
        }
        found
    }

    /// The directory of the run with id `id`, or a 4xx problem saying why not.
    pub fn resolve(&self, id: &str) -> Result<PathBuf, Problem> {
        let unknown = || {
            Problem::not_found(
                "no such run",
                format!("`{id}` names no run under the folders this viewer serves"),
            )
        };
        let (index, rest) = id.split_once('/').unwrap_or((id, ""));
        let index: usize = index.parse().map_err(|_| {
            Problem::bad_request(
                "malformed run id",
                format!("`{id}`: a run id starts with a folder number, e.g. 0/<run directory>"),
            )
        })?;
        let root = self.roots.get(index).ok_or_else(unknown)?;
        let mut path = root.clone();
        if !rest.is_empty() {
            for part in rest.split('/') {
                if !is_plain_name(part) {
                    return Err(Problem::bad_request(
                        "malformed run id",
                        format!("`{id}`: `{part}` is not a plain folder name"),
                    ));
                }
                path.push(part);
            }
        }
        let real = std::fs::canonicalize(&path).map_err(|_| unknown())?;
        if !real.starts_with(root) || !is_run(&real) {
            return Err(unknown());
        }
        // the episodes, which every page of a run reads, are the run's own
        run_file(&real, &real.join(EPISODES))?;
        Ok(real)
    }
}

/// The real path of the file `path` of the run in `run` (a real path, as
/// [`Folders::resolve`] and [`Folders::list`] give), when it is a regular file inside the
/// run's directory; `Ok(None)` when there is no such file; a 403 when it leads out of the
/// run (a symbolic link, itself or a folder on its way) or is not a regular file.
pub fn run_file(run: &Path, path: &Path) -> Result<Option<PathBuf>, Problem> {
    let Some((real, meta)) = confined(run, path)? else {
        return Ok(None);
    };
    if meta.is_file() {
        Ok(Some(real))
    } else {
        Err(refused(run, path, "is not a regular file"))
    }
}

/// The real path of `path` and its metadata, when it exists and lies inside `run`.
fn confined(run: &Path, path: &Path) -> Result<Option<(PathBuf, std::fs::Metadata)>, Problem> {
    // a path that does not resolve (missing, or a link to nothing) is no file of the run
    let Ok(real) = std::fs::canonicalize(path) else {
        return Ok(None);
    };
    if !path.starts_with(run) || !real.starts_with(run) {
        return Err(refused(run, path, "leads out of the run's directory"));
    }
    // `real` holds no link: this is the file itself
    Ok(std::fs::metadata(&real).ok().map(|m| (real, m)))
}

/// The refusal of the file `path` of the run in `run` (named inside the run only: where
/// a link leads is not shown).
fn refused(run: &Path, path: &Path, why: &str) -> Problem {
    let name = path.strip_prefix(run).unwrap_or(Path::new("?")).display();
    Problem::new(
        StatusCode::FORBIDDEN,
        "refused: not a file of the run",
        format!("`{name}` of this run {why}; the viewer reads only a run's own regular files"),
    )
}

/// Whether `dir` holds a run: a `run.toml` that is the run's own regular file.
fn is_run(dir: &Path) -> bool {
    matches!(run_file(dir, &dir.join(RUN_TOML)), Ok(Some(_)))
}

/// Checks every trajectory file of the run in `run` (what a report reads besides the
/// episodes): each must be the run's own regular file, as [`run_file`] says.
pub fn check_trajectories(run: &Path) -> Result<(), Problem> {
    let Some((folder, meta)) = confined(run, &run.join(TRAJECTORIES))? else {
        return Ok(());
    };
    if !meta.is_dir() {
        return Err(refused(run, &run.join(TRAJECTORIES), "is not a folder"));
    }
    let entries = |dir: &Path| -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
            .unwrap_or_default();
        paths.sort();
        paths
    };
    for scenario in entries(&folder) {
        // a file beside the scenario folders is read by nobody
        if let Some((real, meta)) = confined(run, &scenario)?
            && meta.is_dir()
        {
            for file in entries(&real) {
                run_file(run, &file)?;
            }
        }
    }
    Ok(())
}

/// Whether `part` is one ordinary path component (not empty, `.`, `..`, a root or a
/// prefix, and without separators of any platform or NUL).
fn is_plain_name(part: &str) -> bool {
    !part.is_empty()
        && !part.contains(['\\', '\0', ':'])
        && matches!(
            Path::new(part).components().collect::<Vec<_>>().as_slice(),
            [Component::Normal(_)]
        )
}

fn walk(dir: &Path, id: &str, depth: usize, found: &mut Vec<Found>) {
    if is_run(dir) {
        found.push(Found {
            id: id.to_string(),
            path: dir.to_path_buf(),
        });
        return;
    }
    if depth >= MAX_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        // file_type() does not follow symbolic links: a link is never entered
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| is_plain_name(n) && !n.starts_with('.'))
        .collect();
    names.sort();
    for name in names {
        walk(&dir.join(&name), &format!("{id}/{name}"), depth + 1, found);
    }
}

/// The trajectory file of an episode of the run in `run_dir` (`scenario` is mapped to a
/// file name as the runner does, so it never leaves `trajectories/`; read it through
/// [`run_file`]).
pub fn trajectory_path(run_dir: &Path, scenario: &str, epoch: u32) -> PathBuf {
    run_dir
        .join(TRAJECTORIES)
        .join(file_stem(scenario))
        .join(format!("{epoch}.jsonl"))
}

/// The picture `sha` of the run in `run_dir`, when `sha` is a SHA-256 in hex (read it
/// through [`run_file`]).
pub fn media_path(run_dir: &Path, sha: &str) -> Result<PathBuf, Problem> {
    if sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(run_dir.join(MEDIA).join(format!("{sha}.png")))
    } else {
        Err(Problem::bad_request(
            "malformed picture address",
            format!("`{sha}` is not a SHA-256 in hex (64 characters 0-9a-f)"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("run.toml"), "").unwrap();
    }

    #[test]
    fn lists_runs_recursively_and_resolves_them() {
        let tmp = tempfile::tempdir().unwrap();
        run(&tmp.path().join("a"));
        run(&tmp.path().join("deep/er/b"));
        std::fs::create_dir_all(tmp.path().join("empty")).unwrap();
        let folders = Folders::new(&[tmp.path().to_path_buf()]).unwrap();
        let ids: Vec<String> = folders.list().into_iter().map(|f| f.id).collect();
        assert_eq!(ids, ["0/a", "0/deep/er/b"]);
        for id in ids {
            assert!(folders.resolve(&id).is_ok(), "{id}");
        }
    }

    #[test]
    fn ids_never_leave_the_folders() {
        let tmp = tempfile::tempdir().unwrap();
        let served = tmp.path().join("served");
        run(&served.join("a"));
        // a run beside the served folder, which no id may reach
        run(&tmp.path().join("secret"));
        let folders = Folders::new(std::slice::from_ref(&served)).unwrap();
        for id in [
            "0/../secret",
            "0/a/../../secret",
            "0/..",
            "0//a",
            "0/./a",
            "0/a\\..\\..\\secret",
            "0/%2e%2e/secret",
            "1/a",
            "-1/a",
            "x/a",
            "",
            "0/a\0",
            "0/C:",
        ] {
            let p = folders.resolve(id);
            assert!(p.is_err(), "{id:?} resolved to {p:?}");
            assert!(p.unwrap_err().status.is_client_error(), "{id:?}");
        }
        assert!(folders.resolve("0/a").is_ok());
        #[cfg(unix)]
        {
            // a symbolic link inside the folder pointing out of it: not listed, not resolved
            std::os::unix::fs::symlink(tmp.path().join("secret"), served.join("link")).unwrap();
            assert!(folders.resolve("0/link").is_err());
            assert!(folders.list().iter().all(|f| f.id != "0/link"));
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_runs_files_are_its_own_regular_files() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let dir = root.join("r");
        run(&dir);
        std::fs::create_dir_all(dir.join("media")).unwrap();
        std::fs::create_dir_all(dir.join("trajectories/s")).unwrap();
        std::fs::write(dir.join("media/a.png"), "a").unwrap();
        std::fs::write(root.join("outside.png"), "o").unwrap();
        std::os::unix::fs::symlink("a.png", dir.join("media/in.png")).unwrap();
        std::os::unix::fs::symlink(root.join("outside.png"), dir.join("media/out.png")).unwrap();
        std::os::unix::fs::symlink("/nowhere/at/all", dir.join("media/dangling.png")).unwrap();
        let at = |name: &str| run_file(&dir, &dir.join(name));
        assert_eq!(at("media/a.png").unwrap(), Some(dir.join("media/a.png")));
        assert_eq!(at("media/in.png").unwrap(), Some(dir.join("media/a.png")));
        assert_eq!(at("media/missing.png").unwrap(), None);
        assert_eq!(at("media/dangling.png").unwrap(), None);
        let e = at("media/out.png").unwrap_err();
        assert_eq!(e.status, StatusCode::FORBIDDEN);
        assert!(
            e.detail.contains("media/out.png") && !e.detail.contains("outside"),
            "{e:?}"
        );
        assert_eq!(at("media").unwrap_err().status, StatusCode::FORBIDDEN);
        // a path given outside the run is refused however it resolves
        assert!(run_file(&dir, &root.join("outside.png")).is_err());
        // the trajectories: a folder linked out is refused, its own folders pass
        assert!(check_trajectories(&dir).is_ok());
        std::os::unix::fs::symlink(&root, dir.join("trajectories/t")).unwrap();
        assert_eq!(
            check_trajectories(&dir).unwrap_err().status,
            StatusCode::FORBIDDEN
        );
        // a run whose run.toml leads out is no run: neither listed nor resolved
        let other = root.join("o");
        std::fs::create_dir_all(&other).unwrap();
        std::os::unix::fs::symlink(dir.join("run.toml"), other.join("run.toml")).unwrap();
        let folders = Folders::new(std::slice::from_ref(&root)).unwrap();
        assert!(folders.resolve("0/o").is_err());
        assert!(folders.list().iter().all(|f| f.id != "0/o"));
        assert!(folders.resolve("0/r").is_ok());
    }

    #[test]
    fn media_addresses_are_hashes_only() {
        let dir = Path::new("/r");
        assert!(media_path(dir, &"a".repeat(64)).is_ok());
        for bad in ["", "../run.toml", &"g".repeat(64), &"a".repeat(63)] {
            assert!(media_path(dir, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn trajectories_stay_under_trajectories() {
        let p = trajectory_path(Path::new("/r"), "../../etc/passwd", 0);
        assert!(p.starts_with("/r/trajectories"));
        assert_eq!(
            p.components().count(),
            Path::new("/r/trajectories/x/0.jsonl").components().count()
        );
    }

    #[test]
    fn a_missing_folder_is_an_error() {
        let e = Folders::new(&[PathBuf::from("/no/such/folder/here")]).unwrap_err();
        assert!(e.to_string().contains("/no/such/folder/here"), "{e}");
        assert!(std::error::Error::source(&e).is_some());
    }
}
