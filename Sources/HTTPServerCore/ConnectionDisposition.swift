/// What the connection loop does after a response has been written.
package enum ConnectionDisposition {
    /// Read the next request on the same connection.
    case keepAlive
    /// Close with a FIN.
    case close
    /// Close with a TCP reset.
    case reset
}
