import CZip
import Foundation

/// Writes a bundle's folder into a .zip with libzip: one folder of the same name inside, the
/// files in the order given, the capture stored as it is (it hardly compresses, and deflating
/// hundreds of megabytes would double the export), everything else deflated at the fastest level. libzip switches
/// to zip64 by itself for an entry past 4 GB.
enum EvidenceArchive {
    struct Failure: Error, Sendable, Hashable {
        let reason: String
    }

    /// `folder` is the directory whose name becomes the archive's single top folder.
    static func write(
        folder: URL, files: [String], storedUncompressed: Set<String>, modifiedAt: Date, to archive: URL,
        progress: (Double) -> Void
    ) throws(Failure) {
        // libzip calls back only until zip_close returns, so the closure never outlives this call.
        let outcome = withoutActuallyEscaping(progress) { progress in
            Result { () throws(Failure) in try write(folder, files, storedUncompressed, modifiedAt, archive, progress) }
        }
        try outcome.get()
    }

    private static func write(
        _ folder: URL, _ files: [String], _ storedUncompressed: Set<String>, _ modifiedAt: Date, _ archive: URL,
        _ progress: @escaping (Double) -> Void
    ) throws(Failure) {
        var status: Int32 = 0
        guard let zip = zip_open(archive.path, ZIP_CREATE | ZIP_EXCL, &status) else {
            var error = zip_error_t()
            zip_error_init_with_code(&error, status)
            defer { zip_error_fini(&error) }
            throw Failure(reason: "\(archive.path): \(String(cString: zip_error_strerror(&error)))")
        }
        let top = folder.lastPathComponent
        let mtime = time_t(modifiedAt.timeIntervalSince1970.rounded(.down))
        let progressBox = ProgressBox(progress)
        let state = Unmanaged.passRetained(progressBox)
        defer { state.release() }
        do throws(Failure) {
            let directory = zip_dir_add(zip, top, zip_flags_t(ZIP_FL_ENC_UTF_8))
            guard directory >= 0 else { throw Failure(reason: String(cString: zip_strerror(zip))) }
            zip_file_set_mtime(zip, zip_uint64_t(directory), mtime, 0)
            try setMode(Self.folderMode, of: directory, in: zip)
            for name in files {
                let path = folder.appendingPathComponent(name).path
                guard let source = zip_source_file(zip, path, 0, -1) else {
                    throw Failure(reason: "\(path): \(String(cString: zip_strerror(zip)))")
                }
                let index = zip_file_add(zip, top + "/" + name, source, zip_flags_t(ZIP_FL_ENC_UTF_8))
                guard index >= 0 else {
                    zip_source_free(source)
                    throw Failure(reason: "\(name): \(String(cString: zip_strerror(zip)))")
                }
                // The fastest deflate: the documents shrink almost as much as at the default level.
                let stored = storedUncompressed.contains(name)
                zip_set_file_compression(zip, zip_uint64_t(index), stored ? ZIP_CM_STORE : ZIP_CM_DEFLATE, stored ? 0 : 1)
                zip_file_set_mtime(zip, zip_uint64_t(index), mtime, 0)
                try setMode(Self.fileMode, of: index, in: zip)
            }
            zip_register_progress_callback_with_state(zip, 0.01, { _, fraction, state in
                guard let state else { return }
                Unmanaged<ProgressBox>.fromOpaque(state).takeUnretainedValue().report(fraction)
            }, nil, state.toOpaque())
        } catch {
            zip_discard(zip)
            unlink(archive.path)
            throw error
        }
        guard zip_close(zip) == 0 else {
            let reason = String(cString: zip_strerror(zip))
            zip_discard(zip)
            unlink(archive.path)
            throw Failure(reason: "\(archive.path): \(reason)")
        }
    }

    /// Unpacked, nobody but the owner may change the bundle and the group may only read it: without
    /// modes, unzip gives the folder 0777 less the umask, and at umask 000 anyone could swap a file.
    static let folderMode = mode_t(S_IFDIR) | 0o750
    static let fileMode = mode_t(S_IFREG) | 0o640

    private static func setMode(_ mode: mode_t, of index: zip_int64_t, in zip: OpaquePointer) throws(Failure) {
        let attributes = zip_uint32_t(mode) << 16
        guard zip_file_set_external_attributes(zip, zip_uint64_t(index), 0, zip_uint8_t(ZIP_OPSYS_UNIX), attributes) == 0 else {
            throw Failure(reason: String(cString: zip_strerror(zip)))
        }
    }

    private final class ProgressBox {
        let report: (Double) -> Void
        init(_ report: @escaping (Double) -> Void) { self.report = report }
    }
}
