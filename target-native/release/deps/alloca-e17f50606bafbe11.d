/work/main/target-native/release/deps/alloca-e17f50606bafbe11.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/alloca-0.4.0/src/lib.rs

/work/main/target-native/release/deps/liballoca-e17f50606bafbe11.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/alloca-0.4.0/src/lib.rs

/work/main/target-native/release/deps/liballoca-e17f50606bafbe11.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/alloca-0.4.0/src/lib.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/alloca-0.4.0/src/lib.rs:
