/** The provider table as configured ({@code crypto-providers.xml}) and its parser. */
package dev.portcullis.crypto.config;
