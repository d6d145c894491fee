/work/main/target-native/release/deps/simple_iter-cdf2bc8efbed4cf0.d: benches/simple_iter.rs

/work/main/target-native/release/deps/simple_iter-cdf2bc8efbed4cf0: benches/simple_iter.rs

benches/simple_iter.rs:
