import CFuzzer
import Foundation

// SwiftPM gives every executable its own entry point (it renames `main` after the module), so libFuzzer's `main`
// is not the one that runs: this one hands over to libFuzzer's driver, which takes libFuzzer's flags
// (-max_total_time, -dict, corpus folders) as usual.
_ = FuzzTarget.selected  // an unknown FUZZ_TARGET exits here, before the driver starts
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(
    LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        FuzzTarget.selected.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    })
