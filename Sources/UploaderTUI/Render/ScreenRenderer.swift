import UploadDomain

/// The pure view: turns a snapshot and the UI state into a frame of cells.
///
/// It formats only the file rows that are visible, so a batch of 10,000 files costs no more per
/// frame than a batch of 20.
public struct ScreenRenderer: Sendable {
    /// Where the files come from, as the user should read it.
    public var source: String
    /// Where they go, without secrets.
    public var destination: String
    /// Unicode or ASCII drawing.
    public var glyphs: Glyphs
    /// False for `NO_COLOR` or terminals without colours: attributes only.
    public var useColor: Bool
    /// How previews are coloured; nil draws none (no UTF-8, no colours, `NO_COLOR`).
    public var colorDepth: ColorDepth?

    /// Creates a renderer.
    /// - Parameters:
    ///   - source: the folder or files being uploaded (shown sanitised).
    ///   - destination: the target, secrets already removed (shown sanitised).
    ///   - unicode: false draws bars, borders and marks in ASCII.
    ///   - useColor: false leaves every cell in the terminal's default colour.
    ///   - colorDepth: the colours of image previews; nil draws none.
    public init(
        source: String, destination: String, unicode: Bool = true, useColor: Bool = true,
        colorDepth: ColorDepth? = nil
    ) {
        self.colorDepth = unicode && useColor ? colorDepth : nil
        self.source = source
        self.destination = destination
        self.glyphs = unicode ? .unicode : .ascii
        self.useColor = useColor
    }

    /// Draws one frame.
    /// - Parameters:
    ///   - snapshot: the session's state.
    ///   - state: selection, scroll, panes and prompts.
    ///   - size: the terminal size.
    /// - Returns: a frame of exactly `size`.
    public func render(_ snapshot: UploadSnapshot, _ state: UIState, size: TerminalSize) -> Frame {
        var frame = Frame(size: size)
        let layout = Layout(size: size)
        if layout.isTooSmall {
            renderTooSmall(&frame, prompt: state.prompt)
            return frame
        }
        var state = state
        state.size = size
        let visible = state.visibleRows(snapshot.files)
        state.clamp(fileCount: visible.count)
        renderHeader(&frame, snapshot)
        renderAggregate(&frame, snapshot, row: layout.aggregateRow)
        if let row = layout.graphRow { renderGraph(&frame, state.rates, row: row) }
        renderToast(&frame, snapshot, layout: layout, replay: state.isReplay)
        renderList(&frame, snapshot, state, visible: visible, layout: layout)
        if Self.showsSidePreview(state), state.pane == .list { renderSidePreview(&frame, state, layout: layout) }
        renderFooter(&frame, snapshot, state, visible: visible, layout: layout)
        switch state.pane {
        case .list: break
        case .detail:
            if let file = state.selectedFile(in: snapshot.files, visible: visible) {
                renderDetail(&frame, file, preview: state.preview, scroll: state.detailScroll, layout: layout)
            }
        case .help:
            renderHelp(
                &frame, snapshot, layout: layout, canDetach: state.canDetach, replay: state.isReplay,
                scroll: state.helpScroll)
        }
        if let prompt = state.prompt { renderPrompt(&frame, prompt, snapshot, canDetach: state.canDetach) }
        return frame
    }

    // MARK: - Styles

    func style(
        _ color: CellColor = .default, bold: Bool = false, dim: Bool = false, reverse: Bool = false,
        underline: Bool = false
    )
        -> CellStyle
    {
        CellStyle(color: useColor ? color : .default, bold: bold, dim: dim, reverse: reverse, underline: underline)
    }

    func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        DisplayWidth.pad(text, to: width, alignRight: right, ellipsis: glyphs.ellipsis)
    }

    func truncate(_ text: String, _ width: Int) -> String {
        DisplayWidth.truncate(text, to: width, ellipsis: glyphs.ellipsis)
    }

    // MARK: - Too small

    private func renderTooSmall(_ frame: inout Frame, prompt: UIState.Prompt?) {
        let size = frame.size
        let lines = [
            "Terminal too small",
            "\(size.cols)x\(size.rows), need \(Layout.minimum.cols)x\(Layout.minimum.rows)",
            prompt == .quit ? "Quit? (y/n)" : prompt == .cancelAll ? "Cancel all? (y/n)" : "q quits",
        ]
        let top = max(0, size.rows / 2 - 1)
        for (index, line) in lines.enumerated() where top + index < size.rows {
            let cut = truncate(line, size.cols)
            let x = max(0, (size.cols - DisplayWidth.of(cut)) / 2)
            frame.put(cut, x: x, y: top + index, style: style(.yellow, bold: index == 0))
        }
    }

    // MARK: - Header

    private func renderHeader(_ frame: inout Frame, _ snapshot: UploadSnapshot) {
        let cols = frame.size.cols
        // Below 60 columns the route matters more than the program's name.
        let title = cols >= 60 ? " uploader-tui " : ""
        var x = frame.put(title, x: 0, y: 0, style: style(.cyan, bold: true, reverse: true))
        let clock = Formatting.duration(snapshot.elapsed)
        let route = glyphs.display(source) + " " + glyphs.arrow + " " + glyphs.display(destination)
        let room = cols - x - DisplayWidth.of(clock) - 3
        x += 1
        frame.put(truncate(route, room), x: x, y: 0, style: style(bold: true))
        frame.put(clock, x: cols - DisplayWidth.of(clock) - 1, y: 0, style: style(dim: true))

        let counts = snapshot.progress.counts
        let saved = snapshot.progress.bytesSaved
        let limit = snapshot.bandwidthLimit.map { "limit \(Formatting.rate(Double($0)))  " } ?? ""
        let width = (snapshot.concurrencyIsAuto ? "auto " : "") + "\(snapshot.concurrency)"
        let right = (saved > 0 ? "saved \(Formatting.bytes(saved))  " : "") + limit + "concurrency \(width)"
        var segments: [(String, CellStyle)] = [
            ("queued \(counts.queued)", style(dim: counts.queued == 0)),
            ("active \(counts.active)", style(.cyan, bold: counts.active > 0)),
            ("done \(counts.done)", style(.green, bold: counts.done > 0)),
            ("failed \(counts.failed)", counts.failed > 0 ? style(.red, bold: true) : style(dim: true)),
            ("cancelled \(counts.cancelled)", counts.cancelled > 0 ? style(.yellow) : style(dim: true)),
        ]
        if counts.preparing > 0 { segments.insert(("preparing \(counts.preparing)", style(.blue)), at: 1) }
        if counts.skipped > 0 { segments.append(("skipped \(counts.skipped)", style(dim: true))) }
        // Only with --verify: a part of `done`, so it follows it.
        if counts.verified > 0 { segments.insert(("verified \(counts.verified)", style(.green)), at: 3) }
        var separator = " " + glyphs.dot + " "
        let files = counts.total == 1 ? "1 file" : "\(counts.total) files"
        let full = files + "  " + segments.map(\.0).joined(separator: separator)
        var y1x = 1
        if DisplayWidth.of(full) + DisplayWidth.of(right) + 4 <= cols {
            y1x += frame.put(files + "  ", x: y1x, y: 1, style: style(bold: true))
            frame.put(right, x: cols - DisplayWidth.of(right) - 1, y: 1, style: style(dim: true))
        } else {
            // Narrow: only the phases that have files, so the line still fits.
            segments = segments.filter { !$0.0.hasSuffix(" 0") }
            separator = "  "
            if segments.isEmpty { segments = [(files, style())] }
            // The cap and the concurrency still show when the short counts leave room: [ ] + - change them.
            let short = segments.map(\.0).joined(separator: separator)
            if DisplayWidth.of(short) + DisplayWidth.of(right) + 4 <= cols {
                frame.put(right, x: cols - DisplayWidth.of(right) - 1, y: 1, style: style(dim: true))
            }
        }
        for (index, segment) in segments.enumerated() {
            if index > 0 {
                y1x += frame.put(separator, x: y1x, y: 1, style: style(dim: true), maxWidth: cols - 1 - y1x)
            }
            y1x += frame.put(segment.0, x: y1x, y: 1, style: segment.1, maxWidth: cols - 1 - y1x)
        }
    }

    // MARK: - Aggregate bar

    private func renderAggregate(_ frame: inout Frame, _ snapshot: UploadSnapshot, row: Int) {
        let cols = frame.size.cols
        let progress = snapshot.progress
        let percent = Formatting.percent(progress.fraction)
        let sent = Formatting.bytes(progress.bytesSent)
        let total = Formatting.bytes(progress.bytesOfBatch)
        let rate = Formatting.rate(progress.bytesPerSecond, dash: glyphs.dash)
        let time =
            progress.etaRange.map { Formatting.range($0, ascii: glyphs.asciiOnly) }
            ?? progress.eta.map(Formatting.duration) ?? glyphs.dash
        // No time left to tell while the batch stops (the stop's own countdown shows) or every transfer is paused.
        let waits = snapshot.stopping != nil || !snapshot.files.contains { $0.phase.isActive && !$0.isPaused }
        let eta = progress.isSending && !waits ? "ETA " + time : nil
        let candidates: [String] = [
            [percent, "\(sent) of \(total)", progress.isSending ? rate : nil, eta].compactMap { $0 }
                .joined(separator: "  "),
            [percent, "\(sent)/\(total)", eta].compactMap { $0 }.joined(separator: "  "),
            [percent, eta].compactMap { $0 }.joined(separator: "  "),
            percent,
        ]
        let minimumBar = 10
        let text = candidates.first { cols - 3 - DisplayWidth.of($0) >= minimumBar } ?? percent
        let width = max(1, cols - 3 - DisplayWidth.of(text))
        drawBar(&frame, x: 1, y: row, width: width, fraction: progress.fraction, color: toastColor(snapshot.toast))
        frame.put(text, x: width + 2, y: row, style: style(bold: true), maxWidth: cols - width - 2)
    }

    func drawBar(
        _ frame: inout Frame, x: Int, y: Int, width: Int, fraction: Double, color: CellColor, dim: Bool = false
    ) {
        let (filled, empty) = glyphs.bar(fraction, width: width)
        let used = frame.put(filled, x: x, y: y, style: style(color, dim: dim))
        frame.put(empty, x: x + used, y: y, style: style(dim: true))
    }

    func toastColor(_ toast: Toast) -> CellColor {
        switch toast {
        case .willStart, .uploading: .cyan
        case .modeling: .magenta
        case .done: .green
        case .fail: .red
        }
    }

    // MARK: - Toast

    /// The toast's words for each of the five states (seed 001).
    struct ToastText {
        var icon: String
        var title: String
        var subtitle: String
        var detail: String?
        /// Nil when the state has no bar.
        var fraction: Double?
    }

    /// - Parameter replay: the run has ended (`UIState.isReplay`): no key retries, a new run does.
    func toastText(_ snapshot: UploadSnapshot, replay: Bool = false) -> ToastText {
        let counts = snapshot.progress.counts
        let spinner = glyphs.spinner[
            Int(
                (snapshot.elapsed.components.seconds * 10
                    + snapshot.elapsed.components.attoseconds / 100_000_000_000_000_000) % Int64(glyphs.spinner.count))]
        if let stop = snapshot.stopping, !snapshot.isIdle {
            let uploads = counts.active == 1 ? "1 upload" : "\(counts.active) uploads"
            let left = stop.graceLeft.map { Formatting.duration($0) + " left, then they are aborted" } ?? "finishing"
            return ToastText(
                icon: spinner, title: "Finishing \(uploads) " + glyphs.dash + " Ctrl-C again to abort",
                subtitle: "Nothing new starts " + glyphs.dot + " " + left, detail: "q or C aborts now",
                fraction: snapshot.progress.fraction)
        }
        if let unreachable = snapshot.unreachable, snapshot.stopping == nil {
            return ToastText(
                icon: spinner, title: "Server unreachable " + glyphs.dash + " trying it with one request at a time",
                subtitle: "Gone for \(Formatting.duration(unreachable.gone)) " + glyphs.dot + " the run stops in "
                    + Formatting.duration(unreachable.patienceLeft) + " unless it answers",
                detail: "Waiting files keep their retries " + glyphs.dot + " q quits",
                fraction: snapshot.progress.fraction)
        }
        if snapshot.waitsOnPaused {
            // Else the toast reads "Uploading 99%" for as long as nobody resumes it.
            let paused = snapshot.pausedFiles
            return ToastText(
                icon: glyphs.asciiOnly ? "||" : "‖",
                title: (paused == 1 ? "1 file paused " : "\(paused) files paused ") + glyphs.dash
                    + (paused == 1 ? " p resumes it" : " p on each resumes it"),
                subtitle: "The run waits for " + (paused == 1 ? "it" : "them") + ": nothing else is moving",
                fraction: snapshot.progress.fraction)
        }
        switch snapshot.toast {
        case .willStart:
            return ToastText(
                icon: spinner, title: "Uploading", subtitle: "Quitting now may interrupt the upload",
                fraction: 0)
        case .uploading(let fraction):
            return ToastText(
                icon: spinner, title: "Uploading", subtitle: "Quitting now may interrupt the upload",
                fraction: fraction)
        case .modeling:
            let waiting = counts.modeling == 1 ? "1 response" : "\(counts.modeling) responses"
            let reading = counts.verifying == 1 ? "1 stored file" : "\(counts.verifying) stored files"
            return ToastText(
                icon: spinner, title: counts.modeling > 0 ? "Server is processing" : "Verifying",
                subtitle: "Every byte is sent " + glyphs.dash
                    + (counts.modeling > 0 ? " waiting for \(waiting)" : " reading back \(reading)"),
                detail: "Quitting now may interrupt the upload")
        case .done:
            let uploaded = counts.done == 1 ? "1 file" : "\(counts.done) files"
            let skipped = counts.skipped > 0 ? " (\(counts.skipped) skipped)" : ""
            let verified = counts.verified > 0 ? ", \(counts.verified) verified" : ""
            return ToastText(
                icon: glyphs.check, title: "Upload complete",
                subtitle: "\(uploaded) uploaded\(verified) in \(Formatting.duration(snapshot.elapsed))\(skipped)",
                detail: "Press q to exit")
        case .fail(let failed, let cancelled):
            let counted =
                "\(failed) failed " + glyphs.dot + " \(cancelled) cancelled " + glyphs.dot + " \(counts.done) done"
            // R sends again the failed and the cancelled files. The run of a replayed screen is over: a new run of the
            // same folder sends them.
            let retry = "uploader-tui \(glyphs.display(source)) \(glyphs.ellipsis) --retry-failed"
            if let stop = snapshot.batchStop, cancelled > 0 {
                // What every file would meet, said where the eye goes: the rows only read "cancelled".
                return ToastText(
                    icon: glyphs.cross,
                    title: "Upload stopped at " + Sanitizer.displayName(stop.file) + ": "
                        + Sanitizer.displayName(stop.error),
                    subtitle: (stop.everyFile ? "The other files would meet it too " : "--fail-fast stopped the rest ")
                        + glyphs.dot + " " + counted,
                    detail: replay
                        ? "Mend it, then run " + retry
                        : "Mend it, then press R to send the files not done " + glyphs.dot + " q quits")
            }
            // A batch stopped with none failed says so.
            let hint = replay ? "run over; retry: " + retry : "press R to retry the files not done"
            let title = (failed > 0 ? "Upload failed " : "Upload stopped ") + glyphs.dash + " " + hint
            return ToastText(
                icon: glyphs.cross, title: title, subtitle: counted,
                detail: (failed > 0 ? "Enter shows a file's error " : "Enter shows a file's details ") + glyphs.dot
                    + " q quits")
        }
    }

    private func renderToast(_ frame: inout Frame, _ snapshot: UploadSnapshot, layout: Layout, replay: Bool) {
        let cols = frame.size.cols
        let text = toastText(snapshot, replay: replay)
        let color = toastColor(snapshot.toast)
        let isFail: Bool
        if case .fail = snapshot.toast { isFail = true } else { isFail = false }
        let titleStyle = style(color, bold: true)
        let top = layout.toastRow
        if layout.toastBoxed {
            drawBox(&frame, x: 0, y: top, width: cols, height: 5, style: style(color, dim: !isFail))
            let inner = cols - 4
            var x = 2
            x += frame.put(text.icon + " ", x: x, y: top + 1, style: titleStyle)
            let percent = text.fraction.map { Formatting.percent($0) } ?? ""
            frame.put(
                truncate(text.title, inner - (x - 2) - DisplayWidth.of(percent) - 1), x: x, y: top + 1,
                style: titleStyle)
            if !percent.isEmpty {
                frame.put(percent, x: cols - 2 - DisplayWidth.of(percent), y: top + 1, style: style(bold: true))
            }
            frame.put(truncate(text.subtitle, inner - 2), x: 4, y: top + 2, style: style(dim: !isFail))
            if let fraction = text.fraction {
                drawBar(&frame, x: 4, y: top + 3, width: inner - 2, fraction: fraction, color: color)
            } else if let detail = text.detail {
                frame.put(truncate(detail, inner - 2), x: 4, y: top + 3, style: style(dim: true))
            }
        } else {
            var text = text
            var x = 1
            // Too narrow for "title — hint" on one line: the hint replaces the subtitle.
            let separator = " " + glyphs.dash + " "
            if text.fraction == nil, DisplayWidth.of(text.icon + " " + text.title) > cols - 2,
                let range = text.title.range(of: separator)
            {
                let hint = String(text.title[range.upperBound...])
                text.subtitle = hint.prefix(1).uppercased() + hint.dropFirst()
                text.title = String(text.title[..<range.lowerBound])
            }
            x += frame.put(text.icon + " ", x: x, y: top, style: titleStyle)
            if let fraction = text.fraction {
                let percent = " " + Formatting.percent(fraction)
                let titleWidth = min(DisplayWidth.of(text.title), max(0, cols - x - 1 - 12 - DisplayWidth.of(percent)))
                x += frame.put(truncate(text.title, titleWidth), x: x, y: top, style: titleStyle) + 1
                let barWidth = cols - x - 1 - DisplayWidth.of(percent)
                drawBar(&frame, x: x, y: top, width: barWidth, fraction: fraction, color: color)
                frame.put(percent, x: x + barWidth, y: top, style: style(bold: true))
            } else {
                frame.put(truncate(text.title, cols - x - 1), x: x, y: top, style: titleStyle)
            }
            frame.put(truncate(text.subtitle, cols - 4), x: 3, y: top + 1, style: style(dim: !isFail))
        }
    }

    func drawBox(_ frame: inout Frame, x: Int, y: Int, width: Int, height: Int, style: CellStyle, title: String? = nil)
    {
        guard width >= 2, height >= 2 else { return }
        let horizontal = String(repeating: glyphs.horizontal, count: width - 2)
        frame.put(String(glyphs.topLeft) + horizontal + String(glyphs.topRight), x: x, y: y, style: style)
        for row in (y + 1)..<(y + height - 1) {
            frame.put(String(glyphs.vertical), x: x, y: row, style: style)
            frame.fill(" ", x: x + 1, y: row, count: width - 2)
            frame.put(String(glyphs.vertical), x: x + width - 1, y: row, style: style)
        }
        frame.put(
            String(glyphs.bottomLeft) + horizontal + String(glyphs.bottomRight), x: x, y: y + height - 1, style: style)
        if let title {
            frame.put(" " + truncate(title, width - 6) + " ", x: x + 2, y: y, style: self.style(bold: true))
        }
    }
}
