/// `tvctl ca show`: the inspection CA's certificate, for installing on the test phone.
enum CACommand {
    static let group = CommandSpec(
        group: "ca", summary: "The inspection CA the test phone has to trust.",
        subcommands: [show])

    static let show = CommandSpec(
        "show", summary: "Print the inspection CA certificate (PEM) to install on the phone.",
        discussion: "TLS inspection is not part of this build yet, so there is no CA: sessions are recorded with inspection off, and pinning is not assessed.",
        examples: [CommandExample("tvctl ca show > tunnelvision-ca.pem", "Save the certificate to send to the phone.")],
        action: { _, _ throws(ControlError) in throw .refusal(.inspectionUnavailable) })
}
