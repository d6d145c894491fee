/work/main/target-native/release/deps/frag_iter-7759e3d32043bfd4.d: benches/frag_iter.rs

/work/main/target-native/release/deps/frag_iter-7759e3d32043bfd4: benches/frag_iter.rs

benches/frag_iter.rs:
