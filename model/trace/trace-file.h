/*
 * Byte-level file access shared by every reader and writer of the module: transparent gzip on
 * input, gzip by file name on output, and outputs that appear only when complete.
 */
#ifndef CHAKRA_TRACE_FILE_H
#define CHAKRA_TRACE_FILE_H

#include "json-limits.h"
#include "temporary-file-guard.h"

#include <cstddef>
#include <cstdint>
#include <streambuf>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-trace
 * \brief Sequential reader of a plain or gzip'd file.
 *
 * Compression is detected from the content (gzip magic 1f 8b), never from the name, so a
 * gunzipped file that kept its ".gz" name still reads. A gzip'd file is read through zlib
 * (a fixed buffer, about 100 KiB with zlib's state); a plain one straight from its
 * descriptor, with no buffer of its own (its readers have theirs).
 */
class InputFile
{
  public:
    /**
     * Opens a file. \throws TraceError if it cannot be opened, is not a regular file, or is
     * a tar archive (plain or gzip'd: the message says to unpack it).
     * \param path the file
     */
    explicit InputFile(const std::string& path);
    ~InputFile();
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    /**
     * Reads up to \p size bytes.
     * \param buffer destination
     * \param size capacity of the destination
     * \return the number of bytes read; 0 only at the end of the file
     * \throws TraceError on an I/O error or a corrupt or truncated gzip stream
     */
    std::size_t Read(void* buffer, std::size_t size);

    /**
     * Closes the file and releases zlib's state (about 48 KiB: its inflate window and
     * buffers), e.g. once it has been read to the end: a job's thousands of readers that keep
     * their nodes in memory need not keep their files. Read then returns 0; the path, offset
     * and compression stay known.
     */
    void Close();

    /** \return true if the file is gzip'd (known after the first Read) */
    bool IsCompressed() const;
    /** \return the path given to the constructor */
    const std::string& GetPath() const;
    /** \return the number of (uncompressed) bytes delivered so far */
    uint64_t GetOffset() const;
    /** \return the size of the file on disk (compressed size for a gzip'd file) */
    uint64_t GetSize() const;
    /**
     * \param most the buffer a large file gets
     * \return a read buffer size for this file: \p most, or less for a small file (a 1 MiB
     *         buffer for a 100-byte file costs more to allocate and clear than to read it)
     */
    std::size_t BufferSizeFor(std::size_t most) const;

  private:
    /** Throws (closing the file) if it is a tar archive, plain or gzip'd; else rewinds it. */
    void RefuseTarArchive();
    /** Read of a plain file: straight from the descriptor (the caller buffers). */
    std::size_t ReadPlain(void* buffer, std::size_t size);

    std::string m_path;             //!< the file
    int m_fd{-1};                   //!< a plain file's descriptor; -1 for a gzip'd or closed one
    void* m_gz{nullptr};            //!< a gzip'd file's zlib gzFile; null for a plain or closed one
    bool m_closedCompressed{false}; //!< IsCompressed when the file was closed
    uint64_t m_offset{0};           //!< bytes delivered
    uint64_t m_size{0};             //!< bytes on disk
};

/**
 * \ingroup chakra-trace
 * \brief A std::streambuf over an InputFile, so that the JSON stream parsers read plain or
 * gzip'd files of any size through a fixed buffer.
 *
 * Every chunk is checked against kMaxJsonDepth before the parser sees it (see json-limits.h):
 * a JSON reader built on this buffer cannot be driven into unbounded recursion, and the error
 * names the file and the byte of the offending bracket.
 */
class InputFileStreamBuf : public std::streambuf
{
  public:
    /** \param path the file \throws TraceError if it cannot be opened */
    explicit InputFileStreamBuf(const std::string& path);
    /** \return the underlying file */
    const InputFile& GetFile() const;
    /** \return the (uncompressed) bytes the stream's reader has taken so far */
    uint64_t GetConsumed() const;

  protected:
    /** \throws TraceError on a read error or JSON nested past kMaxJsonDepth */
    int_type underflow() override;

  private:
    InputFile m_file;          //!< the byte source
    std::vector<char> m_chunk; //!< read buffer
    JsonDepthGuard m_depth;    //!< nesting of the JSON read so far
};

/**
 * \ingroup chakra-trace
 * \brief Reads a whole plain or gzip'd file into memory (for JSON inputs).
 * \param path the file
 * \return its (uncompressed) content
 * \throws TraceError if it cannot be read
 */
std::string ReadWholeFile(const std::string& path);

/**
 * \ingroup chakra-trace
 * \brief A file written under a temporary name and renamed into place by Commit().
 *
 * A reader never sees a half-written output: if the writer fails or is destroyed before
 * Commit(), the temporary file is removed and any older file at the path is left untouched.
 * A termination signal (SIGINT, SIGTERM, ...) during the write removes it too
 * (TemporaryFileGuard). The output is gzip'd when the path ends in ".gz".
 */
class AtomicOutputFile
{
  public:
    /**
     * Creates the temporary file next to \p path.
     * \param path the final name
     * \throws TraceError if the directory is not writable
     */
    explicit AtomicOutputFile(const std::string& path);
    /** Removes the temporary file unless Commit() succeeded. */
    ~AtomicOutputFile();
    AtomicOutputFile(const AtomicOutputFile&) = delete;
    AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

    /**
     * Appends bytes. \throws TraceError on a write error (disk full, ...)
     * \param data the bytes
     * \param size their number
     */
    void Write(const void* data, std::size_t size);
    /**
     * Appends a string. \throws TraceError on a write error
     * \param text the bytes
     */
    void Write(const std::string& text);
    /** Flushes, closes and renames the file into place. \throws TraceError on failure */
    void Commit();

    /** \return the final path */
    const std::string& GetPath() const;
    /** \return true if the output is gzip'd */
    bool IsCompressed() const;
    /** \return the number of (uncompressed) bytes written so far */
    uint64_t GetOffset() const;

  private:
    /** Closes and removes the temporary file (after an error or without Commit). */
    void Discard();

    std::string m_path;             //!< the final name
    std::string m_tempPath;         //!< the temporary name
    TemporaryFileGuard m_tempGuard; //!< removes the temporary if a signal ends the process
    void* m_gz{nullptr};            //!< zlib gzFile (transparent mode for plain output)
    bool m_compressed;              //!< gzip output
    uint64_t m_offset{0};           //!< bytes written
};

/**
 * \param path a file name
 * \return true if it ends in ".gz"
 */
bool HasGzipSuffix(const std::string& path);

} // namespace ns3

#endif // CHAKRA_TRACE_FILE_H
