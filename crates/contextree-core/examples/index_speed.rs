//! Times the pure indexing of a file held in memory (one thread, no IO).
fn main() {
    let path = std::env::args().nth(1).expect("usage: index_speed FILE");
    let bytes = std::fs::read(&path).expect("readable file");
    let t = std::time::Instant::now();
    let chunk = contextree_core::session::index_chunk(&bytes, 0, 1);
    let idx = t.elapsed();
    let t = std::time::Instant::now();
    let session = contextree_core::session::Session::assemble(vec![chunk], &Default::default(), None);
    let asm = t.elapsed();
    let t = std::time::Instant::now();
    let ctx = contextree_core::context::build(&session, contextree_core::context::Leaf::Last);
    let build = t.elapsed();
    eprintln!(
        "{} MB: index {idx:?} ({:.0} MB/s), assemble {asm:?}, context {build:?} ({} items)",
        bytes.len() >> 20,
        bytes.len() as f64 / 1e6 / idx.as_secs_f64(),
        ctx.items.len()
    );
}
