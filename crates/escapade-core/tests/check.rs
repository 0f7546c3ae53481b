//! `check_env` catches what it is for: the toy world's env passes, and with one fault
//! switched on per check, each check fails with its own error. (An integration test, not a
//! unit test: the toy world lives in escapade-testkit, which links this crate as a
//! library; a unit test's `Env` would be another crate's trait.)

use escapade_core::Action;
use escapade_core::check::{CheckError, check_env};
use escapade_testkit::counter::{CounterEnv, Fault, scenario};

/// Plays `inc`, then junk, on a counter that cannot be won in two steps (so the second
/// step ends it by the limit) and holds a secret.
fn check(fault: Option<Fault>) -> Result<(), CheckError> {
    let mut s = scenario("c", 3);
    s.budget = Some(2);
    s.secret = Some("hunter2".into());
    s.fault = fault;
    let mut env = CounterEnv::new(s);
    check_env(&mut env, 7, &[Action::text("inc"), Action::text("junk")])
}

#[test]
fn a_sound_env_passes() {
    assert_eq!(check(None), Ok(()));
}

#[test]
fn each_broken_contract_is_caught() {
    assert!(matches!(
        check(Some(Fault::Drifts)),
        Err(CheckError::NotDeterministic { step: 0, .. })
    ));
    assert!(matches!(
        check(Some(Fault::LeaksInText)),
        Err(CheckError::Leak { step: 0, .. })
    ));
    assert!(matches!(
        check(Some(Fault::LeaksInPicture)),
        Err(CheckError::Leak { step: 0, .. })
    ));
    assert!(matches!(
        check(Some(Fault::Overshoots)),
        Err(CheckError::Malformed { step: 1, .. })
    ));
    assert!(matches!(
        check(Some(Fault::Mute)),
        Err(CheckError::Malformed { step: 1, .. })
    ));
    assert_eq!(check(Some(Fault::Unguarded)), Err(CheckError::NoEndGuard));
    assert!(matches!(
        check(Some(Fault::Stale)),
        Err(CheckError::Malformed { step: 1, .. })
    ));
}
