import CCurl
import UploadDomain

/// The C callbacks libcurl calls on the engine thread; each finds its transfer through the user-data pointer.
///
/// They live outside `main.swift` so Swift 6 does not isolate them to the main actor.
enum CurlCallbacks {
    /// Stores upload progress in the transfer's probe and aborts a stalled upload; little else, as it runs
    /// per ~32 KB chunk.
    static let progress: curl_xferinfo_callback = { clientp, _, _, ultotal, ulnow in
        guard let clientp else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(clientp).takeUnretainedValue()
        let delivered = transfer.delivered(written: Int64(ulnow), total: Int64(ultotal))
        transfer.probe.report(sent: transfer.shown(delivered), total: Int64(ultotal))
        return transfer.checkStall(sent: delivered, written: Int64(ulnow), total: Int64(ultotal)) ? 1 : 0
    }

    static let write: curl_write_callback = { buffer, size, count, userdata in
        guard let buffer, let userdata else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
        transfer.appendBody(UnsafeRawBufferPointer(start: buffer, count: size * count))
        return size * count
    }

    static let header: curl_write_callback = { buffer, size, count, userdata in
        guard let buffer, let userdata else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
        transfer.appendHeader(UnsafeRawBufferPointer(start: buffer, count: size * count))
        return size * count
    }

    /// Reads a `FileBody` (PUT bodies and multipart file parts alike); pauses the transfer when the bandwidth cap
    /// says wait (the loop unpauses it when tokens come).
    static let read: curl_read_callback = { buffer, size, count, userdata in
        guard let buffer, let userdata else { return ccurl_readfunc_abort() }
        let file = Unmanaged<FileBody>.fromOpaque(userdata).takeUnretainedValue()
        let read = file.read(into: buffer, capacity: size * count)
        if read == FileBody.paused { return Int(CURL_READFUNC_PAUSE) }
        return read < 0 ? ccurl_readfunc_abort() : read
    }

    /// Runs once the transfer's connection is set up (or picked for reuse), before its request is sent.
    static let prereq: curl_prereq_callback = { clientp, _, _, remotePort, localPort in
        guard let clientp else { return CURL_PREREQFUNC_OK }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(clientp).takeUnretainedValue()
        transfer.connectionChosen(ports: (Int32(localPort), Int32(remotePort)))
        return CURL_PREREQFUNC_OK
    }

    /// Reads a `MultipartStream`, as `read` does a file.
    static let readStream: curl_read_callback = { buffer, size, count, userdata in
        guard let buffer, let userdata else { return ccurl_readfunc_abort() }
        let stream = Unmanaged<MultipartStream>.fromOpaque(userdata).takeUnretainedValue()
        let read = stream.read(into: buffer, capacity: size * count)
        if read == FileBody.paused { return Int(CURL_READFUNC_PAUSE) }
        return read < 0 ? ccurl_readfunc_abort() : read
    }

    /// Rewinds a `MultipartStream`, as `seek` does a file.
    static let seekStream: curl_seek_callback = { userdata, offset, origin in
        guard let userdata, origin == SEEK_SET else { return CURL_SEEKFUNC_CANTSEEK }
        let stream = Unmanaged<MultipartStream>.fromOpaque(userdata).takeUnretainedValue()
        return stream.seek(to: Int64(offset)) ? CURL_SEEKFUNC_OK : CURL_SEEKFUNC_FAIL
    }

    /// Rewinds a `FileBody` when libcurl sends the body again (a fresh connection after a dead reused one).
    static let seek: curl_seek_callback = { userdata, offset, origin in
        guard let userdata, origin == SEEK_SET else { return CURL_SEEKFUNC_CANTSEEK }
        let file = Unmanaged<FileBody>.fromOpaque(userdata).takeUnretainedValue()
        return file.seek(to: Int64(offset)) ? CURL_SEEKFUNC_OK : CURL_SEEKFUNC_FAIL
    }
}
