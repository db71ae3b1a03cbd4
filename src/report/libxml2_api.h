/* libxml2, loaded when first needed (dynlib.h): only the JUnit writer uses it, and a
 * report without --junit must not need it to start. */
#ifndef SC_REPORT_LIBXML2_API_H
#define SC_REPORT_LIBXML2_API_H

#include <libxml/xmlstring.h>
#include <libxml/xmlwriter.h>

#define SC_LIBXML2_SONAME "libxml2.so.2"
#define SC_LIBXML2_ENV "STREAMCHECK_LIBXML2"

#define SC_LIBXML2_FUNCTIONS(X) \
    X(xmlCheckUTF8) X(xmlBufferCreate) X(xmlBufferFree) X(xmlBufferContent) \
    X(xmlBufferLength) X(xmlNewTextWriterMemory) X(xmlFreeTextWriter) \
    X(xmlTextWriterSetIndent) X(xmlTextWriterSetIndentString) \
    X(xmlTextWriterStartDocument) X(xmlTextWriterEndDocument) \
    X(xmlTextWriterStartElement) X(xmlTextWriterEndElement) \
    X(xmlTextWriterWriteAttribute) X(xmlTextWriterWriteString)

typedef struct sc_libxml2 {
#define SC_LIBXML2_SLOT(name) __typeof__(name) *name;
    SC_LIBXML2_FUNCTIONS(SC_LIBXML2_SLOT)
#undef SC_LIBXML2_SLOT
} sc_libxml2;

/* The functions, or NULL when libxml2 cannot be loaded. Safe from any thread. */
const sc_libxml2 *sc_libxml2_get(void);

/* Why sc_libxml2_get() is NULL ("" when it is not). */
const char *sc_libxml2_missing(void);

#endif
