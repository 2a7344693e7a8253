import Foundation
import TunnelVisionBuildStamp
import TunnelVisionConsole
import TunnelVisionControl

// The web console: reads its configuration, its password and its certificate, then serves
// until stopped. It is never root: a flaw in it must reach no more than the history's group.
let arguments = Array(CommandLine.arguments.dropFirst())
func fail(_ sentence: String) -> Never {
    FileHandle.standardError.write(Data(("tvconsole: " + sentence + "\n").utf8))
    exit(1)
}
if arguments == ["--version"] {
    print("tvconsole \(BuildStamp.version)")
    exit(0)
}
guard geteuid() != 0 else { fail(Wording.consoleRefusesRoot) }

var configuration = ConsoleConfiguration()
do throws(ConsoleConfiguration.Problem) {
    let path = ConsoleConfiguration.configPath(in: arguments) ?? ConsoleConfiguration.defaultPath
    if let data = FileManager.default.contents(atPath: path) {
        try configuration.apply(file: String(decoding: data, as: UTF8.self))
    } else if ConsoleConfiguration.configPath(in: arguments) != nil {
        fail(Wording.consoleConfigurationUnreadable(path))
    }
    try configuration.apply(arguments: arguments)
} catch {
    fail(Wording.consoleConfigurationProblem(error))
}

// systemd hands the password over as a credential; elsewhere it is the configured file.
let passwordPath = ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"].map { $0 + "/password" } ?? configuration.passwordFile
guard let stored = FileManager.default.contents(atPath: passwordPath),
      let password = ConsolePassword(stored: String(decoding: stored, as: UTF8.self))
else { fail(Wording.consolePasswordMissing(passwordPath)) }

let history = configuration.history ?? DatabaseLocation(option: nil, environment: ProcessInfo.processInfo.environment).path
let log: @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
var tls: (key: String, certificate: String)?
if configuration.tls {
    do throws(ConsoleCertificate.Failure) {
        let certificate = try ConsoleCertificate.loadOrCreate(in: configuration.stateDirectory, hostName: ProcessInfo.processInfo.hostName)
        log(Wording.consoleLogCertificate(
            fingerprint: certificate.fingerprint, made: certificate.made, path: ConsoleFiles.certificatePath(in: configuration.stateDirectory)))
        tls = (certificate.keyPEM, certificate.certificatePEM)
    } catch {
        fail(Wording.consoleCertificateProblem(error))
    }
} else {
    log(Wording.consoleLogPlainHTTP)
}

let app = ConsoleApp(
    runner: CommandRunner(database: history, toolVersion: BuildStamp.version), password: password, secure: configuration.tls,
    exportDirectory: configuration.stateDirectory, log: log)
let server = HTTPServer(handle: { app.handle($0) })
do throws(HTTPServer.Failure) {
    try server.start(.init(address: configuration.listen, port: configuration.port, tls: tls))
} catch {
    fail(Wording.consoleCannotListen(address: configuration.listen, port: configuration.port))
}
log(Wording.consoleLogListening(address: configuration.listen, port: configuration.port, tls: configuration.tls))
signal(SIGPIPE, SIG_IGN)
while true { sleep(3600) }
