/**
 * The SDK's implementation: HTTP transport and retries, the mapping of the services' JSON, the SSE
 * parser and the subscription loop. Not part of the API; may change in any release.
 */
package dev.tether.client.internal;
