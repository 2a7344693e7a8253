import Foundation
import PackagePlugin

/// Names every build after the commit its sources are at: before each build, scripts/build-stamp
/// writes that commit into a source file of the target it is applied to. The script leaves the
/// file alone while the commit is the same, so an unchanged tree rebuilds nothing.
@main
struct BuildStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let package = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "stamp")
        return [
            .prebuildCommand(
                displayName: "Stamping the build with its commit",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [package.appending(path: "scripts/build-stamp").path, package.path, output.path],
                outputFilesDirectory: output),
        ]
    }
}
