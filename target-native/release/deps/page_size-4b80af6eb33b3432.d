/work/main/target-native/release/deps/page_size-4b80af6eb33b3432.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/page_size-0.6.0/src/lib.rs

/work/main/target-native/release/deps/libpage_size-4b80af6eb33b3432.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/page_size-0.6.0/src/lib.rs

/work/main/target-native/release/deps/libpage_size-4b80af6eb33b3432.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/page_size-0.6.0/src/lib.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/page_size-0.6.0/src/lib.rs:
