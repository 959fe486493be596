/**
 * The domain configuration ({@code rosa.xml}): codes, users, rules, routers, with file:line errors;
 * address prefixes; the domain's development PKI.
 */
package dev.portcullis.active.config;
