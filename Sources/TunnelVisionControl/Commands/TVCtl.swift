import Foundation
import TunnelVisionExport
import TunnelVisionModel

/// tvctl as a function: a command line in, an exit status out.
public enum TVCtl {
    public static let parser = ArgumentParser(root: CommandTree.root, globalOptions: [SharedOptions.database])

    /// A command line that is not UTF-8, refused before anything is parsed.
    public static func refuse(_ error: ArgumentEncodingError, invocation: Invocation) -> Int32 {
        let refusal = ControlError.usage(.notUTF8(position: error.position))
        invocation.console.writeError("tvctl: " + refusal.sentence + "\n")
        return refusal.exitCode
    }

    /// What a killed `tvctl export` left in the folder tvctl now starts in: a half-written bundle
    /// is nobody's evidence, and only this folder is known to have been an export's output.
    public static func clearStaleExports(in directory: URL) {
        EvidenceExporter.clearStaleStagings(in: directory)
    }

    /// Runs one command line (without the program name) and returns the exit status:
    /// 0 done, 1 refused, 2 not understood, 3 the history did not answer.
    public static func run(_ arguments: [String], invocation: Invocation) -> Int32 {
        run(arguments, invocation: invocation, parser: parser, program: "tvctl")
    }

    /// The same for another command tree of this package (a development tool's), whose
    /// sentences carry its own program name.
    package static func run(_ arguments: [String], invocation: Invocation, parser: ArgumentParser, program: String) -> Int32 {
        let console = invocation.console
        do {
            let routed = ArchiveReading.routed(arguments) {
                ArchiveReading.configuredDefault(arguments, environment: invocation.environment)
            }
            switch try parser.parse(routed) {
            case .version:
                console.print("\(program) \(invocation.toolVersion)")
            case .help(let spec, let path):
                console.writeOutput(HelpText.page(for: spec, commandPath: path, globalOptions: parser.globalOptions))
            case .run(let spec, let parsed):
                try spec.action?(parsed, invocation)
            }
            return 0
        } catch {
            console.writeError(program + ": " + error.sentence + "\n")
            return error.exitCode
        }
    }
}
