import Foundation
import Hummingbird
import Logging

/// Outermost middleware: counts requests, turns every error into a JSON response and writes one
/// log line per request (method, path, status, bytes, duration).
///
/// Only the path is logged — never headers or the query string — so bearer tokens cannot leak
/// into logs.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = UploadRequestContext

    let logger: Logger
    let statistics: StatisticsRecorder

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        let arrived = Date().timeIntervalSince1970
        statistics.record { statistics in
            statistics.requests += 1
            if statistics.firstRequestAt == nil { statistics.firstRequestAt = arrived }
        }
        let response: Response
        do {
            response = try await next(request, context)
        } catch is ConnectionResetInjected {
            log(request, status: "RESET", context: context, responseBytes: 0, started: started)
            // Re-throw so Hummingbird has nothing to send; the channel is already closed.
            throw ConnectionResetInjected()
        } catch is StalledConnectionClosed {
            log(request, status: "STALLED", context: context, responseBytes: 0, started: started)
            throw StalledConnectionClosed()
        } catch {
            response = Self.jsonResponse(for: error, request: request, context: context)
        }
        log(
            request, status: String(response.status.code), context: context,
            responseBytes: response.body.contentLength ?? 0, started: started)
        return response
    }

    /// Maps any error to the server's JSON error shape.
    static func jsonResponse(for error: any Error, request: Request, context: Context) -> Response {
        switch error {
        case let error as ReferenceServerError:
            if let response = try? error.response(from: request, context: context) { return response }
        case let error as HTTPError:
            // Router-generated errors (404 for unknown routes, 413, ...) carry no JSON of their own.
            let message = error.body ?? error.status.reasonPhrase.lowercased()
            return JSONResponse.make(
                status: error.status.code, body: ErrorBody(error: message, status: error.status.code),
                headers: error.headers)
        case let error as any HTTPResponseError:
            if let response = try? error.response(from: request, context: context) { return response }
        default:
            break
        }
        return JSONResponse.make(status: 500, body: ErrorBody(error: "internal error", status: 500))
    }

    private func log(
        _ request: Request, status: String, context: Context, responseBytes: Int, started: ContinuousClock.Instant
    ) {
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000
            + Double(elapsed.components.attoseconds) / 1e15
        logger.info(
            "\(request.method) \(request.uri.path) \(status) in=\(context.bodyBytes.value)B out=\(responseBytes)B \(String(format: "%.1f", milliseconds))ms"
        )
    }
}
