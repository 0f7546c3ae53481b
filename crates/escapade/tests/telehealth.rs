//! `escapade import comma <DIR>` over a PAD-UFES-20 folder (made up here: three rows of
//! plausible, invented values, two images, one missing), and the scenarios it writes:
//! replayed byte for byte, shown to the solver as the supplied photograph, solved by
//! the oracle pair.

mod common;
use common::*;

use std::path::{Path, PathBuf};

use escapade_comma::world::CommaWorld;
use escapade_core::World;
use image::{Rgb, RgbImage};

const HEADER: &str = "patient_id,lesion_id,smoke,drink,background_father,background_mother,age,\
pesticide,gender,skin_cancer_history,cancer_history,has_piped_water,has_sewage_system,\
fitspatrick,region,diameter_1,diameter_2,diagnostic,itch,grew,hurt,changed,bleed,elevation,\
img_id,biopsed";

/// The lesion photograph's colours, far from the synthetic drawing's skin tones.
const SKIN: [u8; 3] = [40, 160, 200];
const LESION: [u8; 3] = [20, 20, 90];

/// A fake PAD-UFES-20 folder in `dir`: `metadata.csv` with a BCC (image 800×600 in
/// `imgs_part_1/`), a NEV (image 120×90 in `images/`) and an SCC whose image is missing.
fn folder(dir: &Path) -> PathBuf {
    let root = dir.join("pad-ufes-20");
    std::fs::create_dir_all(root.join("imgs_part_1")).unwrap();
    std::fs::create_dir_all(root.join("images")).unwrap();
    let csv = format!(
        "{HEADER}\r\n\
         PAT_46,881,False,False,POMERANIA,POMERANIA,55,False,FEMALE,True,True,True,True,3.0,\
         NECK,6.0,5.0,BCC,True,True,False,True,True,True,PAT_46_881_939.png,True\r\n\
         PAT_1516,1765,,,,,38,,,,,,,,ARM,,,NEV,False,False,False,False,False,False,\
         PAT_1516_1765_530.png,False\r\n\
         PAT_9,12,True,False,GERMANY,ITALY,70,False,MALE,False,False,True,False,2.0,FACE,\
         4.0,3.0,SCC,False,True,True,False,True,True,PAT_9_12_1.png,True\r\n"
    );
    std::fs::write(root.join("metadata.csv"), csv).unwrap();
    let photo = |w: u32, h: u32| {
        RgbImage::from_fn(w, h, |x, y| {
            let (dx, dy) = (x as f32 / w as f32 - 0.5, y as f32 / h as f32 - 0.5);
            Rgb(if dx * dx + dy * dy < 0.04 {
                LESION
            } else {
                SKIN
            })
        })
    };
    photo(800, 600)
        .save(root.join("imgs_part_1/PAT_46_881_939.png"))
        .unwrap();
    photo(120, 90)
        .save(root.join("images/PAT_1516_1765_530.png"))
        .unwrap();
    root
}

fn import(args: &[&str]) -> std::process::Output {
    escapade(&[&["import", "comma"], args].concat())
}

fn read(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_pad_ufes_folder_becomes_one_scenario_per_case_with_its_photograph() {
    let tmp = tempfile::tempdir().unwrap();
    let root = folder(tmp.path());
    let out = tmp.path().join("scenarios");
    let o = import(&[root.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let printed = String::from_utf8(o.stdout.clone()).unwrap();
    assert_eq!(printed.lines().count(), 2, "{printed}");
    let e = stderr(&o);
    assert!(
        e.contains("case PAT_9_12_1.png: skipped: image PAT_9_12_1.png not found"),
        "{e}"
    );
    assert!(e.contains("imported 2 of 3 cases (1 skipped)"), "{e}");

    let bcc = out.join("comma-telehealth-PAT_46_881_939.json");
    let nev = out.join("comma-telehealth-PAT_1516_1765_530.json");
    let v = read(&bcc);
    assert_eq!(v["world"], "comma");
    assert_eq!(v["puzzle"], "telehealth");
    assert_eq!(v["id"], "comma-telehealth-PAT_46_881_939");
    assert_eq!(v["instance"]["skin_lesion_idx"], 0);
    assert_eq!(v["instance"]["record"]["patient_id"], "PAT_46");
    assert_eq!(v["instance"]["record"]["diagnostic"], "BCC");
    assert!(v["instance"].get("synthetic").is_none());
    assert!(v["instance"]["picture_png"].as_str().unwrap().len() > 100);
    assert_eq!(read(&nev)["instance"]["skin_lesion_idx"], 1);

    // the same folder gives the same bytes
    let again = tmp.path().join("again");
    ok(import(&[
        root.to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
        "-q",
    ]));
    for f in [&bcc, &nev] {
        let name = f.file_name().unwrap();
        assert_eq!(
            std::fs::read(f).unwrap(),
            std::fs::read(again.join(name)).unwrap()
        );
    }
    // --limit: only the first rows
    let one = ok(import(&[root.to_str().unwrap(), "--limit", "1"]));
    let list: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["id"], "comma-telehealth-PAT_46_881_939");

    // the solver sees the photograph (scaled to fit 512×384), the same bytes each play
    let mut seen = Vec::new();
    for run in ["play1", "play2"] {
        let images = tmp.path().join(run);
        let (ok_, text, err) = play(
            &[
                "play",
                bcc.to_str().unwrap(),
                "--role",
                "solver",
                "--images",
                images.to_str().unwrap(),
            ],
            "what now?\ndiagnose_BCC\ntreat_surgery\n",
        );
        assert!(ok_, "{err}");
        assert!(text.contains("escaped"), "{text}");
        seen.push(std::fs::read(images.join("current.png")).unwrap());
    }
    assert_eq!(seen[0], seen[1]);
    let shown = image::load_from_memory(&seen[0]).unwrap().to_rgb8();
    assert_eq!(shown.dimensions(), (512, 384));
    assert_eq!(shown.get_pixel(5, 5).0, SKIN);
    assert_eq!(shown.get_pixel(256, 192).0, LESION);
    // the world's observation: that picture, its alt text the description (the
    // patient's record, marked private), no synthetic drawing; the small one as it was
    for (file, size) in [(&bcc, (512, 384)), (&nev, (120, 90))] {
        let json = std::fs::read_to_string(file).unwrap();
        let mut env = World::env(&CommaWorld, &json, &Default::default()).unwrap();
        let o = env.reset(3);
        assert_eq!(o.images.len(), 1);
        let png = &o.images[0].png;
        assert_eq!(
            image::load_from_memory(png).unwrap().to_rgb8().dimensions(),
            size
        );
        let alt = o.images[0].alt.as_deref().unwrap();
        assert!(alt.contains("a photograph of the lesion"), "{alt}");
        assert!(alt.contains("do not reveal"), "{alt}");
        assert!(!alt.contains("SYNTHETIC"), "{alt}");
        if size == (512, 384) {
            assert_eq!(png, &seen[0]);
        }
    }

    // the oracle pair solves every imported case
    let runs = tmp.path().join("runs");
    ok(escapade(&[
        "run",
        out.to_str().unwrap(),
        "--agent",
        "oracle",
        "--out",
        runs.to_str().unwrap(),
        "-q",
    ]));
    let rows = std::fs::read_to_string(run_dir_under(&runs).join("episodes.jsonl")).unwrap();
    let rows: Vec<serde_json::Value> = rows
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["success"] == true), "{rows:?}");
}

#[test]
fn bad_folders_are_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nowhere");
    let o = import(&[missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));

    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = import(&[empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("has no metadata.csv"), "{}", stderr(&o));

    std::fs::write(empty.join("metadata.csv"), "img_id,age\nx.png,40\n").unwrap();
    let o = import(&[empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no `diagnostic` column"),
        "{}",
        stderr(&o)
    );

    // rows that cannot drive the rules are skipped; none left is an error
    let photo = RgbImage::from_pixel(4, 4, Rgb(SKIN));
    photo.save(empty.join("x.png")).unwrap();
    std::fs::write(empty.join("y.png"), b"not an image").unwrap();
    std::fs::write(
        empty.join("metadata.csv"),
        "img_id,diagnostic\nx.png,XYZ\ny.png,NEV\n,MEL\nx.png,NEV,extra\n",
    )
    .unwrap();
    let o = import(&[empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("case row 1: skipped:") && e.contains("XYZ"),
        "{e}"
    );
    assert!(
        e.contains("case y.png: skipped:") && e.contains("y.png"),
        "{e}"
    );
    assert!(e.contains("case row 3: skipped: no img_id"), "{e}");
    assert!(
        e.contains("case row 4: skipped:") && e.contains("3 fields"),
        "{e}"
    );
    assert!(e.contains("none of the 4 cases"), "{e}");
}

/// A PAD-UFES-20 folder as long as the real one (2298 rows, so every row the evaluation
/// set names is there), its rows carrying the diagnoses and sizes the original's answers
/// give them, all rows sharing two photographs; row `odd` is a melanoma whatever the
/// answers say.
fn long_folder(dir: &Path, odd: u64) -> PathBuf {
    let root = dir.join("pad-ufes-20-full");
    std::fs::create_dir_all(root.join("images")).unwrap();
    let answers = escapade_comma::world::stand_in_answers();
    let mut csv = format!("{HEADER}\n");
    for idx in 0..2298u64 {
        let (code, treat) = answers
            .get(&idx)
            .map(|(c, t)| (c.as_str(), t.as_str()))
            .unwrap_or(("NEV", "no_treatment"));
        let code = if idx == odd { "MEL" } else { code };
        let (d1, d2) = if treat == "surgery" {
            ("8.0", "6.0")
        } else {
            ("3.0", "2.0")
        };
        let image = if idx % 2 == 0 { "even.png" } else { "odd.png" };
        csv.push_str(&format!(
            "PAT_{idx},{idx},False,False,,,60,False,MALE,False,False,True,True,2.0,ARM,\
             {d1},{d2},{code},False,False,False,False,False,False,{image},True\n"
        ));
    }
    std::fs::write(root.join("metadata.csv"), csv).unwrap();
    RgbImage::from_pixel(64, 48, Rgb(SKIN))
        .save(root.join("images/even.png"))
        .unwrap();
    RgbImage::from_pixel(64, 48, Rgb(LESION))
        .save(root.join("images/odd.png"))
        .unwrap();
    root
}

/// Item 0: with the dataset, `import comma <PAD-UFES-20> --suite comma@4` writes the
/// paper's evaluation set with Telehealth played on the exact rows it names (row
/// `skin_lesion_idx`, from 0), under the suite's ids; everything else is the suite's own
/// bytes.
#[test]
fn the_suite_plays_the_exact_cases_of_a_pad_ufes_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let root = long_folder(tmp.path(), 997);
    let out = tmp.path().join("comma2");
    let o = import(&[
        root.to_str().unwrap(),
        "--suite",
        "comma@4",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    // row 997 is a melanoma here, a basal cell carcinoma in the original's answers
    assert!(
        e.contains("warning: comma-telehealth-200: row 997 is a MEL here, a BCC"),
        "{e}"
    );
    let suite = CommaWorld.build_suite("comma@4").unwrap();
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1000);
    let mut real = 0;
    for built in &suite {
        let v: serde_json::Value = serde_json::from_str(built).unwrap();
        let id = v["id"].as_str().unwrap();
        let file = out.join(format!("{id}.json"));
        if v["puzzle"] == "telehealth" {
            let w = read(&file);
            let idx = v["instance"]["skin_lesion_idx"].as_u64().unwrap();
            assert_eq!(w["instance"]["skin_lesion_idx"], idx);
            assert_eq!(w["instance"]["record"]["patient_id"], format!("PAT_{idx}"));
            assert!(w["instance"].get("synthetic").is_none(), "{id}");
            assert!(w["instance"]["picture_png"].is_string(), "{id}");
            real += 1;
        } else {
            assert_eq!(&std::fs::read_to_string(&file).unwrap(), built, "{id}");
        }
    }
    assert_eq!(real, 100);
    // the real cases play and the oracle pair solves them
    let tele = tmp.path().join("tele");
    std::fs::create_dir_all(&tele).unwrap();
    for n in [200, 201, 299] {
        let name = format!("comma-telehealth-{n}.json");
        std::fs::copy(out.join(&name), tele.join(&name)).unwrap();
    }
    let runs = tmp.path().join("runs");
    ok(escapade(&[
        "run",
        tele.to_str().unwrap(),
        "--agent",
        "oracle",
        "--out",
        runs.to_str().unwrap(),
        "-q",
    ]));
    let rows = std::fs::read_to_string(run_dir_under(&runs).join("episodes.jsonl")).unwrap();
    assert_eq!(rows.matches("\"success\":true").count(), 3, "{rows}");
    // --suite is for a folder of the comma world only
    let o = import(&[
        root.join("metadata.csv").to_str().unwrap(),
        "--suite",
        "comma@4",
    ]);
    assert!(
        stderr(&o).contains("--suite applies only to"),
        "{}",
        stderr(&o)
    );
    let o = import(&[root.to_str().unwrap(), "--suite", "comma-gen@3"]);
    assert!(
        stderr(&o).contains("only comma@4 names rows"),
        "{}",
        stderr(&o)
    );
}
