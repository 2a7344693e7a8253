import TunnelVisionModel

// flows.json's shapes as JSON, keys in the order they are written (bytewise ascending): the one
// description of a flow, for the bundle and for `tvctl flows --json`.

extension EvidenceFlowsDocument: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) throws {
        try json.object { json in
            try json.field("contents", contents)
            try json.field("flows", flows)
            try json.field("format", format)
            try json.field("formatVersion", formatVersion)
            try json.field("sessionID", sessionID)
        }
    }
}

extension EvidenceFlow: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) throws {
        try json.object { json in
            try json.field("bytesIn", bytesIn)
            try json.field("bytesOut", bytesOut)
            try json.field("clientTLS", clientTLS)
            try json.field("continuation", continuation)
            try json.field("dnsName", dnsName)
            try json.field("dnsOtherNames", dnsOtherNames)
            try json.field("durationSeconds", durationSeconds)
            try json.field("findingIDs", findingIDs)
            try json.field("firstSeen", firstSeen)
            try json.field("httpHost", httpHost)
            try json.field("id", id)
            try json.field("lastSeen", lastSeen)
            try json.field("name", name)
            try json.field("packetCount", packetCount)
            try json.field("peers", peers)
            try json.field("protocol", self.protocol)
            try json.field("proxyProtocol", proxyProtocol)
            try json.field("quic", quic)
            try json.field("relay", relay)
            try json.field("requests", requests)
            try json.field("requestsNotKept", requestsNotKept)
            try json.field("serverCertificate", serverCertificate)
            try json.field("serverTLS", serverTLS)
            try json.field("sni", sni)
            try json.field("socksHost", socksHost)
            try json.field("streamOpening", streamOpening)
            try json.field("tcpPayload", tcpPayload)
            try json.field("tlsStatus", tlsStatus)
        }
    }
}

extension EvidenceFlow.Peer: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) throws {
        try json.object { json in
            try json.field("address", address)
            try json.field("port", port)
        }
    }
}

extension EvidenceFlow.Name: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) throws {
        try json.object { json in
            try json.field("origin", origin)
            try json.field("text", text)
        }
    }
}

extension EvidenceFlow.ClientTLS: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) throws {
        try json.object { json in
            try json.field("applicationProtocols", applicationProtocols)
            try json.field("droppedIdentifiers", droppedIdentifiers)
            try json.field("earlyData", earlyData)
            try json.field("earlyDataOffered", earlyDataOffered)
            try json.field("encryptedClientHello", encryptedClientHello)
            try json.field("omittedApplicationProtocols", omittedApplicationProtocols)
            try json.field("versions", versions)
            try json.field("versionsForm", versionsForm)
        }
    }
}

extension EvidenceFlow.EarlyData: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) throws {
        try json.object { json in
            try json.field("sent", sent)
            try json.field("serverAnswer", serverAnswer)
            try json.field("statement", statement)
        }
    }
}

extension EvidenceFlow.ServerTLS: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) throws {
        try json.object { json in
            try json.field("alert", alert)
            try json.field("answer", answer)
            try json.field("cipherSuite", cipherSuite)
            try json.field("fromHelloRetryRequest", fromHelloRetryRequest)
            try json.field("helloRetry", helloRetry)
            try json.field("source", source)
            try json.field("version", version)
        }
    }
}

extension EvidenceFlow.QUIC: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) throws {
        try json.object { json in
            try json.field("end", end)
            try json.field("firstVersion", firstVersion)
            try json.field("version", version)
        }
    }
}

extension EvidenceFlow.ProxyProtocol: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) throws {
        try json.object { json in
            try json.field("destination", destination)
            try json.field("source", source)
            try json.field("version", version)
        }
    }
}

extension EvidenceFlow.ServerCertificate: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) throws {
        try json.object { json in
            try json.field("absence", absence)
            try json.field("chain", chain)
            try json.field("chainIsComplete", chainIsComplete)
            try json.field("visibility", visibility)
        }
    }
}

extension EvidenceFlow.Relay: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) throws {
        try json.object { json in
            try json.field("alert", alert)
            try json.field("decision", decision)
            try json.field("event", event)
            try json.field("keyLogLines", keyLogLines)
            try json.field("presented", presented)
            try json.field("reason", reason)
            try json.field("serverNameAsSent", serverNameAsSent)
            try json.field("upstreamApplicationProtocol", upstreamApplicationProtocol)
            try json.field("upstreamCertificateVerified", upstreamCertificateVerified)
            try json.field("upstreamVerification", upstreamVerification)
        }
    }
}

extension CertificateSummary: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) throws {
        try json.object { json in
            try json.field("issuer", issuer)
            try json.field("namesTruncated", namesTruncated)
            try json.field("notAfter", notAfter)
            try json.field("notBefore", notBefore)
            try json.field("sha256", sha256)
            try json.field("subject", subject)
        }
    }
}

extension EvidenceTLSVersion: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) throws {
        try json.object { json in
            try json.field("name", name)
            try json.field("wireValue", wireValue)
        }
    }
}

extension EvidenceCodePoint: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) throws {
        try json.object { json in
            try json.field("hex", hex)
            try json.field("wireValue", wireValue)
        }
    }
}

extension ReadRequest: EvidenceJSONWritable {
    public func write(to json: inout EvidenceJSONWriter) throws {
        try json.object { json in
            try json.field("authority", authority)
            try json.field("bodyBytes", bodyBytes)
            try json.field("instant", instant)
            try json.field("method", method)
            try json.field("path", path)
            try json.field("responseStatus", responseStatus)
            try json.field("stream", stream)
            try json.field("version", version.rawValue)
        }
    }
}
