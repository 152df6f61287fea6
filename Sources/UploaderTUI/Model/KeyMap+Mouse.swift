import UploadDomain

extension KeyMap {
    /// Rows the wheel moves the selection per step.
    static let wheelStep = 3

    /// What a click or a wheel step does: a click on a file row selects it (on a failed row's error it also opens
    /// the details), a click while a pane is open closes it, and the wheel moves the selection. Everything here
    /// has a key too.
    static func pointed(_ mouse: MouseEvent, state: UIState, snapshot: UploadSnapshot) -> UIState {
        var state = state
        switch mouse.action {
        case .wheelUp, .wheelDown:
            guard state.pane != .help else { return state }
            state.selected += mouse.action == .wheelUp ? -wheelStep : wheelStep
            return state
        case .press:
            guard state.pane == .list else {
                state.pane = .list
                return state
            }
            let layout = Layout(size: state.size)
            let row = mouse.y - layout.listTop
            guard row >= 0, row < layout.listHeight else { return state }
            let visible = state.visibleRows(snapshot.files)
            let position = state.scrollTop + row
            guard position < visible.count else { return state }
            let file = snapshot.files[visible[position]]
            let listWidth =
                ScreenRenderer.showsSidePreview(state)
                ? state.size.cols - ScreenRenderer.sidePreviewWidth : state.size.cols
            guard mouse.x < listWidth else { return state }
            state.selected = position
            if file.phase == .failed, mouse.x >= Columns(cols: listWidth).progressX {
                state.pane = .detail
            }
            return state
        }
    }
}
