//! Indexing in parallel chunks must give exactly the session a single pass
//! gives: same entries, lines, spans, links and diagnostics, whatever the
//! chunk boundaries (omp's recovery from a malformed line never crosses a
//! line it could not see, so every fixture is checked with tiny chunks too).

use contextree_core::session::{NodeId, Session};
use contextree_core::Dialect;
use contextree_host::load::load_in_chunks;

/// Everything observable about a session, as text.
fn fingerprint(s: &Session) -> String {
    let mut out = format!("{:?} v{} {:?}\n{:?}\n", s.dialect(), s.original_version(), s.header(), s.detection());
    for (i, e) in s.entries().iter().enumerate() {
        let n = NodeId(i as u32);
        out.push_str(&format!("{} {} {:?} {:?} {:?} {}\n", e.line, e.id, e.span, s.tree().parent(n), e.kind, s.entry_tokens(n)));
    }
    for d in s.diagnostics() {
        out.push_str(&format!("{d}\n"));
    }
    out
}

#[test]
fn tiny_chunks_give_the_same_session_as_one_pass() {
    let files = contextree_testkit::fixture_sessions();
    assert!(files.len() > 60, "fixtures missing");
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        for dialect in [Dialect::Pi, Dialect::Omp] {
            let whole = Session::parse(&bytes, Some(contextree_core::RuleSet::oldest(dialect)));
            for chunk in [1, 700, 64 << 10] {
                let chunked =
                    load_in_chunks(&contextree_host::HostEnv::default(), f, Some(contextree_core::RuleSet::oldest(dialect).into()), chunk)
                        .unwrap();
                assert_eq!(fingerprint(&chunked.session), fingerprint(&whole), "{} {dialect} chunk {chunk}", f.display());
            }
        }
    }
}

/// Each worker reads its chunk's dialect signals; merged in file order they must choose
/// what one pass over the file chooses, header and title line included.
#[test]
fn tiny_chunks_detect_what_one_pass_detects() {
    for f in &contextree_testkit::fixture_sessions() {
        let bytes = std::fs::read(f).unwrap();
        let whole = Session::parse(&bytes, None);
        for chunk in [1, 90, 700, 64 << 10] {
            let chunked = load_in_chunks(&contextree_host::HostEnv::default(), f, None, chunk).unwrap();
            let what = format!("{} chunk {chunk}", f.display());
            assert_eq!(chunked.session.detection(), whole.detection(), "{what}");
            assert_eq!(chunked.session.rules(), whole.rules(), "{what}");
            assert_eq!(fingerprint(&chunked.session), fingerprint(&whole), "{what}");
        }
    }
}
