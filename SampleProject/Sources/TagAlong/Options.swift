import Foundation

/// The parsed command line: one command plus the global flags.
struct Options: Sendable {
    /// What to run.
    enum Command: Sendable, Equatable {
        case demo
        case events
        case login(user: String, password: String)
        case post(text: String)
        case download(destination: String?)
        case follow(count: Int)
        case help
    }

    var command: Command = .demo
    /// `--base-url`: a real Tag Along server instead of the embedded demo server.
    var baseURL: URL?
    /// `--debug`: ConnectionKit's debug output, and the registry dump at the end.
    var debug = false
    /// `--inspect`: the inspector's page on 127.0.0.1, and a demo slow enough to watch in it.
    var inspect = false
    /// `--transport libcurl`: every request over ConnectionKit's libcurl transport (Linux).
    var libcurl = false

    static let usage = """
        TagAlong: the Tag Along app on the command line, built on ConnectionKit.

        USAGE: TagAlong [command] [--debug] [--inspect] [--base-url URL] [--transport urlsession|libcurl]

        COMMANDS
          demo                          The default. A scripted end-to-end run against the embedded demo
                                        server: events; a login with a wrong password, then the right one;
                                        a micropost posted while the server is down, queued, and delivered
                                        when it is back; an attachment downloaded with a progress bar.
                                        Exits non-zero if any step fails.
          events                        Lists the events.
          login --user U --password P   Logs in and keeps the token in the credential store. A wrong user
                                        name or password gets one generic message.
          post "text"                   Posts a micropost as the logged-in user. When the server cannot be
                                        reached, the post is queued in the offline queue and delivered later.
          download [--to PATH]          Downloads the event flyer to PATH (default: ./flyer.pdf) with a
                                        progress bar.
          follow [--count N]            Follows the live check-in feed (server-sent events) and prints
                                        the first N check-ins (default 5). The demo server drops the
                                        connection every few events; the feed resumes with Last-Event-ID.
          help, --help, -h              Shows this text.

        OPTIONS
          --base-url URL                Talk to the Tag Along API at URL instead of starting the embedded
                                        demo server on 127.0.0.1 (not with `demo`, which stops and restarts
                                        its server).
          --debug                       Print ConnectionKit's debug output for every request (secrets
                                        redacted), and the registry dump while a download runs and at
                                        the end.
          --inspect                     Start ConnectionKit's inspector and print the URL to open in a
                                        browser (live requests, history, statistics, HAR); the demo then
                                        pauses 2 s between steps, and the app waits for Return at the end.
          --transport urlsession|libcurl
                                        What moves the bytes: URLSession (the default) or, on Linux,
                                        ConnectionKit's transport on the system's libcurl.

        The embedded demo server knows one user: ada / lovelace.
        """

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var positional: [String] = []
        var user: String?
        var password: String?
        var destination: String?
        var count = 5
        var index = 0
        func value(after flag: String) throws -> String {
            index += 1
            guard index < arguments.count else { throw UsageError("\(flag) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--help", "-h": options.command = .help
            case "--debug": options.debug = true
            case "--inspect": options.inspect = true
            case "--base-url":
                let text = try value(after: argument)
                guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
                    throw UsageError("--base-url needs an http or https URL, not \(text)")
                }
                options.baseURL = url
            case "--transport":
                switch try value(after: argument) {
                case "urlsession": options.libcurl = false
                case "libcurl": options.libcurl = true
                case let other: throw UsageError("--transport is urlsession or libcurl, not \(other)")
                }
            case "--user": user = try value(after: argument)
            case "--password": password = try value(after: argument)
            case "--to": destination = try value(after: argument)
            case "--count":
                let text = try value(after: argument)
                guard let number = Int(text), number > 0 else { throw UsageError("--count needs a positive number") }
                count = number
            default:
                if argument.hasPrefix("--") { throw UsageError("unknown option \(argument)") }
                positional.append(argument)
            }
            index += 1
        }
        if options.command == .help { return options }
        switch positional.first {
        case nil, "demo":
            options.command = .demo
            if options.baseURL != nil { throw UsageError("demo runs against the embedded server; drop --base-url") }
        case "events": options.command = .events
        case "login":
            guard let user, let password else { throw UsageError("login needs --user U --password P") }
            options.command = .login(user: user, password: password)
        case "post":
            guard positional.count == 2, !positional[1].isEmpty else {
                throw UsageError(#"post needs one text: post "text""#)
            }
            options.command = .post(text: positional[1])
        case "download": options.command = .download(destination: destination)
        case "follow": options.command = .follow(count: count)
        case "help": options.command = .help
        case let other?: throw UsageError("unknown command \(other)")
        }
        return options
    }
}

/// A command line that cannot be run, with the reason.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
