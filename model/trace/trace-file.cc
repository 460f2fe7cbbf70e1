#include "trace-file.h"

#include "trace-error.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>
#include <zlib.h>

namespace ns3
{

namespace
{

/** zlib's buffer size for writing: large enough to amortise system calls. */
constexpr unsigned kZlibBufferBytes = 1u << 18;

/**
 * zlib's buffer size for reading a gzip'd file. A replay keeps one reader open per rank until
 * its trace ends, and zlib allocates this much for input plus twice as much for output (gz_look
 * in zlib's gzread.c): 256 KiB cost 768 KiB per rank, 3 GiB at 4,096 ranks (doc/workloads.md,
 * the DLRM job scaled). 32 KiB (96 KiB per rank; zlib's own default is 8 KiB) still reads in
 * few calls. Plain files do not go through zlib (it would allocate the same buffers to copy).
 */
constexpr unsigned kZlibReadBufferBytes = 1u << 15;

/** Largest single gzread/gzwrite request (their size argument is an unsigned int). */
constexpr std::size_t kMaxZlibChunk = 1u << 30;

std::string
GzErrorText(gzFile gz)
{
    int code = Z_OK;
    const char* text = gzerror(gz, &code);
    if (code == Z_ERRNO)
    {
        return std::strerror(errno);
    }
    return text != nullptr ? text : "unknown zlib error";
}

/** The process umask (mkstemp creates files 0600; outputs should get the usual mode). */
mode_t
CurrentUmask()
{
    static const mode_t mask = [] {
        mode_t m = umask(0);
        umask(m);
        return m;
    }();
    return mask;
}

} // namespace

bool
HasGzipSuffix(const std::string& path)
{
    return path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
}

InputFile::InputFile(const std::string& path)
    : m_path(path)
{
    struct stat info;
    if (stat(path.c_str(), &info) != 0)
    {
        throw TraceError(path, "", std::string("cannot open: ") + std::strerror(errno));
    }
    if (!S_ISREG(info.st_mode))
    {
        throw TraceError(path, "", "cannot open: not a regular file");
    }
    m_size = static_cast<uint64_t>(info.st_size);
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
    {
        throw TraceError(path, "", std::string("cannot open: ") + std::strerror(errno));
    }
    // gzip or not, from the content (the magic 1f 8b), never from the name.
    unsigned char magic[2] = {0, 0};
    const bool gzip =
        pread(fd, magic, sizeof(magic), 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (!gzip)
    {
        m_fd = fd;
        RefuseTarArchive();
        return;
    }
    gzFile gz = gzdopen(fd, "rb"); // owns fd from here
    if (gz == nullptr)
    {
        close(fd);
        throw TraceError(path, "", "cannot open: out of memory for zlib");
    }
    gzbuffer(gz, static_cast<unsigned>(BufferSizeFor(kZlibReadBufferBytes)));
    m_gz = gz;
    RefuseTarArchive();
}

void
InputFile::RefuseTarArchive()
{
    // A tar header is 512 bytes with "ustar" at byte 257 (POSIX and GNU); a trace read as
    // JSON or protobuf would fail there with "malformed JSON" or a bad message, which does
    // not say what is wrong. The first bytes are read once and the stream rewound.
    constexpr std::size_t kMagicAt = 257;
    char header[kMagicAt + 5];
    const bool compressed = IsCompressed();
    std::string reason;
    bool tar = false;
    if (!compressed)
    {
        const ssize_t got = pread(m_fd, header, sizeof(header), 0); // leaves the offset at 0
        tar = got == static_cast<ssize_t>(sizeof(header)) &&
              std::memcmp(header + kMagicAt, "ustar", 5) == 0;
        if (!tar && got >= 0)
        {
            return;
        }
        reason = std::strerror(errno);
    }
    else
    {
        auto gz = static_cast<gzFile>(m_gz);
        const int got = gzread(gz, header, sizeof(header));
        tar = got == static_cast<int>(sizeof(header)) &&
              std::memcmp(header + kMagicAt, "ustar", 5) == 0;
        // A short read (a small file, or gzip data cut short) rewinds and Read reports the
        // rest; an error (corrupt gzip data) is what Read would report at byte 0.
        if (!tar && got >= 0 && gzrewind(gz) == 0)
        {
            return;
        }
        reason = GzErrorText(gz);
    }
    Close();
    if (!tar)
    {
        throw TraceError(m_path,
                         "byte 0",
                         (compressed ? "corrupt or truncated gzip data: " : "read error: ") +
                             reason);
    }
    throw TraceError(m_path,
                     "",
                     std::string("is a tar archive") + (compressed ? " (gzip'd)" : "") +
                         ", not a trace: unpack it (tar -x" + (compressed ? "z" : "") + "f " +
                         m_path + ") and give the trace files inside");
}

InputFile::~InputFile()
{
    Close();
}

void
InputFile::Close()
{
    m_closedCompressed = IsCompressed();
    if (m_gz != nullptr)
    {
        gzclose_r(static_cast<gzFile>(m_gz));
        m_gz = nullptr;
    }
    if (m_fd >= 0)
    {
        close(m_fd);
        m_fd = -1;
    }
}

std::size_t
InputFile::Read(void* buffer, std::size_t size)
{
    if (m_fd >= 0)
    {
        return ReadPlain(buffer, size);
    }
    if (m_gz == nullptr)
    {
        return 0; // closed
    }
    auto gz = static_cast<gzFile>(m_gz);
    auto* out = static_cast<char*>(buffer);
    std::size_t total = 0;
    while (total < size)
    {
        auto request = static_cast<unsigned>(std::min(size - total, kMaxZlibChunk));
        int got = gzread(gz, out + total, request);
        if (got < 0)
        {
            throw TraceError(m_path,
                             "byte " + std::to_string(m_offset + total),
                             "corrupt or truncated gzip data: " + GzErrorText(gz));
        }
        if (got == 0)
        {
            // gzread reports a truncated gzip stream as a short read plus an error.
            int code = Z_OK;
            gzerror(gz, &code);
            if (code != Z_OK && code != Z_STREAM_END)
            {
                throw TraceError(m_path,
                                 "byte " + std::to_string(m_offset + total),
                                 "corrupt or truncated gzip data: " + GzErrorText(gz));
            }
            break;
        }
        total += static_cast<std::size_t>(got);
    }
    m_offset += total;
    return total;
}

std::size_t
InputFile::ReadPlain(void* buffer, std::size_t size)
{
    auto* out = static_cast<char*>(buffer);
    std::size_t total = 0;
    while (total < size)
    {
        const ssize_t got = read(m_fd, out + total, std::min(size - total, kMaxZlibChunk));
        if (got < 0)
        {
            if (errno == EINTR)
            {
                continue;
            }
            throw TraceError(m_path,
                             "byte " + std::to_string(m_offset + total),
                             std::string("read error: ") + std::strerror(errno));
        }
        if (got == 0)
        {
            break;
        }
        total += static_cast<std::size_t>(got);
    }
    m_offset += total;
    return total;
}

bool
InputFile::IsCompressed() const
{
    return m_gz != nullptr || (m_fd < 0 && m_closedCompressed);
}

const std::string&
InputFile::GetPath() const
{
    return m_path;
}

uint64_t
InputFile::GetOffset() const
{
    return m_offset;
}

uint64_t
InputFile::GetSize() const
{
    return m_size;
}

std::size_t
InputFile::BufferSizeFor(std::size_t most) const
{
    // A gzip'd file inflates: its on-disk size undersizes the buffer, which only costs a few
    // more reads. 8 KiB at least: zlib wants room for its header and one deflate block.
    std::size_t size = 8192;
    while (size < most && size < m_size)
    {
        size *= 2;
    }
    return std::min(size, most);
}

InputFileStreamBuf::InputFileStreamBuf(const std::string& path)
    : m_file(path),
      m_chunk(m_file.BufferSizeFor(1u << 20))
{
}

const InputFile&
InputFileStreamBuf::GetFile() const
{
    return m_file;
}

uint64_t
InputFileStreamBuf::GetConsumed() const
{
    return m_file.GetOffset() - static_cast<uint64_t>(egptr() - gptr());
}

InputFileStreamBuf::int_type
InputFileStreamBuf::underflow()
{
    if (gptr() < egptr())
    {
        return traits_type::to_int_type(*gptr());
    }
    std::size_t got = m_file.Read(m_chunk.data(), m_chunk.size());
    if (got == 0)
    {
        return traits_type::eof();
    }
    // The parser recurses nowhere, but everything that later copies or dumps what it built
    // does: refuse the nesting before it exists.
    if (std::optional<uint64_t> excess = m_depth.Scan(m_chunk.data(), got))
    {
        throw TraceError(m_file.GetPath(), "byte " + std::to_string(*excess), JsonTooDeepMessage());
    }
    setg(m_chunk.data(), m_chunk.data(), m_chunk.data() + got);
    return traits_type::to_int_type(*gptr());
}

std::string
ReadWholeFile(const std::string& path)
{
    InputFile file(path);
    std::string content;
    struct stat info;
    if (stat(path.c_str(), &info) == 0)
    {
        content.reserve(static_cast<std::size_t>(info.st_size));
    }
    std::vector<char> chunk(1u << 20);
    while (std::size_t got = file.Read(chunk.data(), chunk.size()))
    {
        content.append(chunk.data(), got);
    }
    return content;
}

AtomicOutputFile::AtomicOutputFile(const std::string& path)
    : m_path(path),
      m_compressed(HasGzipSuffix(path))
{
    std::string::size_type slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    if (base.empty())
    {
        throw TraceError(path, "", "cannot write: the output name is a directory");
    }
    std::vector<char> name(dir.begin(), dir.end());
    std::string suffix = "." + base + ".tmp-XXXXXX";
    name.insert(name.end(), suffix.begin(), suffix.end());
    name.push_back('\0');
    int fd = TemporaryFileGuard::MakeTemporary(name.data(), m_tempGuard);
    if (fd < 0)
    {
        throw TraceError(path, "", std::string("cannot write: ") + std::strerror(errno));
    }
    m_tempPath = name.data();
    fchmod(fd, 0666 & ~CurrentUmask());
    // "T" writes plain bytes through the same buffered interface.
    gzFile gz = gzdopen(fd, m_compressed ? "wb6" : "wbT");
    if (gz == nullptr)
    {
        close(fd);
        unlink(m_tempPath.c_str());
        m_tempGuard.Disarm();
        throw TraceError(path, "", "cannot write: out of memory");
    }
    gzbuffer(gz, kZlibBufferBytes);
    m_gz = gz;
}

AtomicOutputFile::~AtomicOutputFile()
{
    Discard();
}

void
AtomicOutputFile::Discard()
{
    if (m_gz != nullptr)
    {
        gzclose_w(static_cast<gzFile>(m_gz));
        m_gz = nullptr;
        unlink(m_tempPath.c_str());
        m_tempGuard.Disarm();
    }
}

void
AtomicOutputFile::Write(const void* data, std::size_t size)
{
    if (m_gz == nullptr)
    {
        throw TraceError(m_path, "", "write after the file was committed or discarded");
    }
    auto gz = static_cast<gzFile>(m_gz);
    const auto* in = static_cast<const char*>(data);
    std::size_t done = 0;
    while (done < size)
    {
        auto request = static_cast<unsigned>(std::min(size - done, kMaxZlibChunk));
        int wrote = gzwrite(gz, in + done, request);
        if (wrote <= 0)
        {
            std::string reason = GzErrorText(gz);
            Discard();
            throw TraceError(m_path, "byte " + std::to_string(m_offset), "write error: " + reason);
        }
        done += static_cast<std::size_t>(wrote);
    }
    m_offset += size;
}

void
AtomicOutputFile::Write(const std::string& text)
{
    Write(text.data(), text.size());
}

void
AtomicOutputFile::Commit()
{
    if (m_gz == nullptr)
    {
        throw TraceError(m_path, "", "commit after the file was committed or discarded");
    }
    int status = gzclose_w(static_cast<gzFile>(m_gz));
    m_gz = nullptr;
    if (status != Z_OK)
    {
        unlink(m_tempPath.c_str());
        m_tempGuard.Disarm();
        throw TraceError(m_path, "", std::string("write error on close: ") + std::strerror(errno));
    }
    if (std::rename(m_tempPath.c_str(), m_path.c_str()) != 0)
    {
        int error = errno;
        unlink(m_tempPath.c_str());
        m_tempGuard.Disarm();
        throw TraceError(m_path,
                         "",
                         std::string("cannot rename into place: ") + std::strerror(error));
    }
    // Only now: a signal between the rename and here unlinks a name that no longer exists.
    m_tempGuard.Disarm();
}

const std::string&
AtomicOutputFile::GetPath() const
{
    return m_path;
}

bool
AtomicOutputFile::IsCompressed() const
{
    return m_compressed;
}

uint64_t
AtomicOutputFile::GetOffset() const
{
    return m_offset;
}

} // namespace ns3
