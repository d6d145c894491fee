/work/main/target-native/release/deps/support-4e812f7e688a0e3e.d: tests/support/lib.rs tests/support/counting.rs

/work/main/target-native/release/deps/libsupport-4e812f7e688a0e3e.rlib: tests/support/lib.rs tests/support/counting.rs

/work/main/target-native/release/deps/libsupport-4e812f7e688a0e3e.rmeta: tests/support/lib.rs tests/support/counting.rs

tests/support/lib.rs:
tests/support/counting.rs:
