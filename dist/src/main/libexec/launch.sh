# Shared by the launchers in bin/ (sourced, with MAIN set): finds Java 17 or later, passes the
# flags Portcullis needs and runs MAIN with the jars in lib/; a command given no --config reads
# the install's conf/ (portcullis.conf), whatever the working directory.
#
#   JAVA_HOME          the Java to use (else java on PATH)
#   PORTCULLIS_HEAP    heap flags (default: -Xms32m -Xmx512m)
#   JAVA_OPTS          more JVM flags
#   PORTCULLIS_LOGBACK a logback configuration (e.g. conf/logback-file.xml for a rotated file);
#                      default: the command's own, to stderr
name=$(basename "$0")
here=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
if [ -n "$JAVA_HOME" ]; then
  java="$JAVA_HOME/bin/java"
else
  java=$(command -v java || true)
fi
if [ -z "$java" ] || [ ! -x "$java" ]; then
  echo "$name: no Java found: set JAVA_HOME, or put java (17 or later) on PATH" >&2
  exit 2
fi
version=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p')
case "$version" in
  1.*|9|1[0-6]|"")
    echo "$name: needs Java 17 or later; $java is ${version:-of unknown version}" >&2
    exit 2 ;;
esac
# --enable-native-access: the JNI providers (PortcullisNative, Conscrypt, ACCP) load native code,
# which JDK 24 and later warn about unless it is enabled.
exec "$java" --enable-native-access=ALL-UNNAMED ${PORTCULLIS_HEAP:--Xms32m -Xmx512m} $JAVA_OPTS \
  ${PORTCULLIS_LOGBACK:+-Dlogback.configurationFile="$PORTCULLIS_LOGBACK"} \
  -Dportcullis.conf="$here/conf" -cp "$here/lib/*" "$MAIN" "$@"
