import TunnelVisionExport

/// What `tvctl verify` says of a bundle, one sentence per line.
extension Wording {
    static func verificationLine(_ line: BundleVerification.Line) -> String {
        let mark = switch line.standing {
        case .holds: "ok     "
        case .fails: "FAILED "
        case .absent: "ABSENT "
        case .notChecked: "—      "
        }
        return mark + line.check.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0) + verificationSentence(line.finding)
    }

    static func verificationSentence(_ finding: BundleVerification.Finding) -> String {
        switch finding {
        case .zipReads(let members):
            "The zip reads to its end: \(plural(members, "file")), each matching its CRC-32 and length."
        case .zipUnreadable(let reason):
            "The zip cannot be read: \(reason); nothing else was checked."
        case .memberDamaged(let name, let reason):
            "\(name) cannot be read out of the zip: \(reason)."
        case .memberTwice(let name):
            "\(quoted(name)) is in the zip twice: unzip keeps the last of the two, so what is read depends on the tool, and a bundle has each file once."
        case .oneFolder(let folder):
            "Every file lies in the one folder \(folder)."
        case .noSingleFolder:
            "The zip has no single folder its files lie in, as a bundle has."
        case .memberOutsideFolder(let name):
            "\(quoted(name)) lies outside the bundle's folder (or in a folder below it): a bundle has no such file, and unzip could write it elsewhere."
        case .membersAgree(let count):
            "Every one of the \(plural(count, "file")) the manifest lists is there with its size and SHA-256, and no other file is."
        case .manifestMissing:
            "The bundle has no manifest.json, so none of its files can be checked against it."
        case .manifestUnreadable:
            "manifest.json cannot be read as a manifest, so none of the files can be checked against it."
        case .memberMissing(let name):
            "\(name) is listed in the manifest and is not in the bundle (removed or renamed)."
        case .memberChanged(let name):
            "\(name) is not the file the manifest lists: its SHA-256 or size differs, so it was changed after export."
        case .memberNotListed(let name):
            "\(name) is in the bundle and not in the manifest (added, or renamed from a listed file)."
        case .signed(let keyID, let comment):
            "manifest.json is signed by gateway key \(keyID); its trusted comment: \(comment)"
        case .signatureMissing:
            "The bundle is not signed: it has no manifest.json.minisig, so nothing shows which gateway made it."
        case .signatureUnreadable:
            "manifest.json.minisig is not a minisign signature."
        case .keyIDDisagrees(let manifest, let signature):
            "The manifest names key \(manifest ?? "none") and the signature is by key \(signature): one of them was replaced."
        case .signedByUnknownKey(let signedBy, let known) where known.isEmpty:
            "The signature is by key \(signedBy), and no public key was there to check it: give the signing gateway's with --public-key."
        case .signedByUnknownKey(let signedBy, let known):
            "The signature is by key \(signedBy), which is not \(known.count == 1 ? "the key given (\(known[0]))" : "one of this gateway's keys (\(known.joined(separator: ", ")))"): another key signed it."
        case .manifestNotSigned(let keyID):
            "manifest.json is not the file key \(keyID) signed: it was changed after signing."
        case .trustedCommentChanged(let keyID):
            "The signature's trusted comment is not the one key \(keyID) signed: it was changed after signing."
        case .timestamped(let instant, let caFile):
            "manifest.json was timestamped at \(Formatting.iso8601(instant)) by a TSA whose signature holds under \(caFile)."
        case .timestampNotChecked(let instant):
            "manifest.json.tsr is a token over this manifest, dated \(Formatting.iso8601(instant)); its signature was not checked: give the TSA's chain with --tsa-ca."
        case .timestampMissing:
            "The bundle has no timestamp (no manifest.json.tsr): nothing but the gateway's clock dates it."
        case .timestampUnreadable:
            "manifest.json.tsr is not a granted RFC 3161 time-stamp reply."
        case .timestampOtherDigest:
            "manifest.json.tsr is a token for another digest than this manifest's: it does not date this bundle."
        case .timestampSignatureFails(let caFile):
            "manifest.json.tsr's signature does not hold under \(caFile): the token is not from that TSA, or was changed."
        case .chainHolds(let links, let unsealed):
            links == 0
                ? "capture.json's captureChain holds no link: " + (unsealed == 0 ? "no source file." : "\(plural(unsealed, "source file")) unsealed, nothing fixed their digests.")
                : "capture.json's \(plural(links, "chain link")) follow each other and are signed by the daemon key it names"
                    + (unsealed == 0 ? "." : "; \(plural(unsealed, "source file")) unsealed: nothing fixed their digests.")
        case .chainMissing:
            "capture.json has no captureChain: nothing shows the capture files were not changed after they were written."
        case .chainUnreadable:
            "capture.json's captureChain cannot be read as links of the chain over the capture files."
        case .chainLinkForged(let file):
            "The chain's link for \(file) is not signed by the daemon key capture.json names: it was edited or forged."
        case .chainLinkBroken(let file):
            "The chain breaks at the link for \(file): it does not hold the SHA-256 of the link before it."
        case .chainFileWithoutLink(let sequence):
            "capture.json calls source file \(sequence) sealed and holds no link for it."
        case .captureReads(let packets, let blocks):
            "capture.pcapng reads to its end: \(plural(packets, "packet")) in \(plural(blocks, "pcapng block"))."
        case .captureDamaged(let reason):
            "capture.pcapng does not read to its end: \(reason)."
        case .captureMissing:
            "The bundle has no capture.pcapng."
        case .notChecked:
            "Not checked: what it depends on failed."
        }
    }

    static func bundleDoesNotVerify(path: String, failed: Int) -> String {
        "\(path) does not verify: \(plural(failed, "check")) above did not hold."
    }
}
