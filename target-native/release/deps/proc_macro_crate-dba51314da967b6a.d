/work/main/target-native/release/deps/proc_macro_crate-dba51314da967b6a.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/proc-macro-crate-3.5.0/src/lib.rs

/work/main/target-native/release/deps/libproc_macro_crate-dba51314da967b6a.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/proc-macro-crate-3.5.0/src/lib.rs

/work/main/target-native/release/deps/libproc_macro_crate-dba51314da967b6a.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/proc-macro-crate-3.5.0/src/lib.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/proc-macro-crate-3.5.0/src/lib.rs:
