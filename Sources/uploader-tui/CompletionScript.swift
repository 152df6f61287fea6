import ArgumentParser

/// `--generate-completion-script bash|zsh|fish`: swift-argument-parser's scripts, which complete a subcommand's
/// options only after its name, taught upload's short form (`uploader-tui PATH… --to URL`): a command line whose
/// first word names no subcommand is completed as `uploader-tui upload PATH…`, and the first word may be a path.
/// The library does not model a default subcommand in its scripts (its issue 488). The additions wrap the script's
/// functions; zsh's entry point is renamed for its wrapper, and fish's option specs are mended (below).
enum CompletionScript {
    /// What the first word may be without being upload's short form.
    private static let rootWords = UploaderCommand.rootWords.sorted() + UploaderCommand.rootFlags.sorted()

    /// The script for `shell`, or nil for a shell the library does not know.
    static func generate(_ shell: String) -> String? {
        guard let kind = CompletionShell(rawValue: shell) else { return nil }
        let script = UploaderCommand.completionScript(for: kind)
        switch kind {
        case .bash: return script + bash
        case .zsh:
            // The library's entry point is renamed and the short form's takes its name; the script's last lines,
            // which call it (autoloaded) or register it (sourced), come after its definition.
            let entry = "\n_uploader-tui() {\n"
            guard script.contains(entry), let last = script.range(of: "\nif [[ \"${funcstack[1]}\" = _uploader-tui")
            else { return script }
            return String(script[..<last.lowerBound])
                .replacingOccurrences(of: entry, with: "\n__uploader-tui_subcommands() {\n") + zsh
        case .fish:
            // fish's argparse refuses an option name with a dot (`http1.1`, `no-http1.1`), and the library's parse of
            // the command line, which every upload and delete completion waits on, then fails: it is `http1_1` to
            // argparse, and the tokens read say so (below).
            let specs = script.replacingOccurrences(of: "'http1.1' 'no-http1.1'", with: "'http1_1' 'no-http1_1'")
                .replacingOccurrences(of: " http1.1' -l", with: " http1_1' -l")
                .replacingOccurrences(of: " no-http1.1' -l", with: " no-http1_1' -l")
            return specs + fish
        default: return script
        }
    }

    private static var words: String { rootWords.joined(separator: "|") }

    private static var bash: String {
        """

        # Upload's short form, `uploader-tui PATH… --to URL`, is completed as `uploader-tui upload PATH…`; the first
        # word may be a path too.
        _uploader-tui_short_form() {
            case "${COMP_WORDS[1]}" in
            \(words)) ;;
            *)
                if [[ "${COMP_CWORD}" -ge 2 || "${COMP_WORDS[1]}" == -* ]]; then
                    COMP_LINE="${COMP_WORDS[0]} upload${COMP_LINE#"${COMP_WORDS[0]}"}"
                    COMP_POINT=$((COMP_POINT + 7))
                    COMP_WORDS=("${COMP_WORDS[0]}" upload "${COMP_WORDS[@]:1}")
                    COMP_CWORD=$((COMP_CWORD + 1))
                fi
                ;;
            esac
            _uploader-tui "${@}"
            local -r cur="${2}"
            if [[ "${COMP_CWORD}" -eq 1 && "${cur}" != -* ]]; then
                __uploader-tui_add_completions -f
            fi
        }

        complete -o filenames -F _uploader-tui_short_form uploader-tui

        """
    }

    private static var zsh: String {
        """

        # Upload's short form, `uploader-tui PATH… --to URL`, is completed as `uploader-tui upload PATH…`; the first
        # word may be a path too.
        _uploader-tui() {
            local -i ret=1
            case "${words[2]}" in
            \(words)) ;;
            *)
                if (( CURRENT > 2 )) || [[ "${words[2]}" == -* ]]; then
                    words=("${words[1]}" upload "${(@)words[2,-1]}")
                    (( CURRENT++ ))
                fi
                ;;
            esac
            __uploader-tui_subcommands "${@}" && ret=0
            if (( CURRENT == 2 )) && [[ "${words[2]}" != -* ]]; then
                _files && ret=0
            fi
            return "${ret}"
        }

        if [[ "${funcstack[1]}" = _uploader-tui ]]; then
            _uploader-tui "${@}"
        else
            compdef _uploader-tui uploader-tui
        fi

        """
    }

    private static var fish: String {
        """

        # Upload's short form, `uploader-tui PATH… --to URL`, is read as `uploader-tui upload PATH…`; the first word
        # may be a path too.
        functions -c __uploader-tui_tokens __uploader-tui_tokens_as_typed
        function __uploader-tui_tokens
            set -l tokens (__uploader-tui_tokens_as_typed $argv)
            contains -- -p $argv; or contains -- -pc $argv; or begin; string join \\n -- $tokens; return; end
            set -l typed (__uploader-tui_tokens_as_typed -p)
            set -l before (__uploader-tui_tokens_as_typed -pc)
            if test (count $typed) -ge 2; and not contains -- $typed[2] \(rootWords.joined(separator: " "))
                if test (count $before) -ge 2; or string match -q -- '-*' $typed[2]
                    set tokens $tokens[1] upload $tokens[2..]
                end
            end
            string replace -r -- '^--(no-)?http1\\.1$' '--${1}http1_1' $tokens
        end
        complete -c 'uploader-tui' -n '__uploader-tui_should_offer_completions_for_positional "uploader-tui" -eq 1' -F

        """
    }
}
